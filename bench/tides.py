"""What the rig benchmarks research: a corpus about tides, and the settings of a run over it."""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import workspace  # noqa: F401  (finds ponder in a checkout)

from ponder import aresearch
from ponder.core.result import Report
from ponder.testing import TINY_MODEL, ChatRequest, Rig

TOPIC = "How do tides work?"

FACTS = [
    "Tides are the rise and fall of sea level caused by the Moon's and the Sun's gravity.",
    "Most coasts see two high tides and two low tides every lunar day of 24 hours 50 minutes.",
    "Spring tides happen near new and full Moon, when Sun and Moon pull in line.",
    "Neap tides happen near the quarter Moons, when the pulls are at right angles.",
    "The Bay of Fundy has the largest tidal range on Earth, over 16 metres.",
    "Tidal bulges form on the side facing the Moon and on the far side of the Earth.",
    "Harbour pilots read tide tables to bring deep ships in at high water.",
    "Tide gauges record sea level every few minutes; some records span two centuries.",
    "Friction from tides slowly lengthens the day and pushes the Moon further away.",
    "Amphidromic points are places where the tidal range is almost zero.",
]


def make_corpus(folder: Path, docs: int = 24) -> Path:
    """Documents about tides: varied paragraphs, so different queries find different text."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(docs):
        lines = [FACTS[(i + k) % len(FACTS)] for k in range(6)]
        body = "\n\n".join(
            f"Tide question {i + k}: {line} Sea level data from station {i}-{k} agrees."
            for k, line in enumerate(lines)
        )
        (folder / f"tides-{i:02d}.md").write_text(f"# Tide notes {i}\n\n{body}\n", "utf-8")
    return folder


def research(topic: str, **settings: Any) -> Report:
    return asyncio.run(aresearch(topic, **settings))


def base(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    """A focused run of the scripted model over the corpus."""
    return {
        "model": "scripted",
        "ollama_base_url": rig.url,
        "search": "local",
        "docs": [str(corpus)],
        "mode": "loop",
        "allow_clarification": False,
        **extra,
    }


def tiny_config(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    """The same with the tiny model, sized for two cores."""
    settings = {
        "model": TINY_MODEL,
        "num_ctx": 2048,
        "num_predict": 64,
        "queries_per_round": 2,
        "max_retries": 1,
        **extra,
    }
    return base(rig, corpus, **settings)


def reflection(queries: list[str]) -> dict[str, Any]:
    """A Reflection that asks for another round with ``queries``."""
    return {
        "is_sufficient": False,
        "knowledge_gap": "more detail",
        "follow_up_queries": queries,
        "scope": "focused",
        "subtopics": [],
    }


def fresh_followups() -> Callable[[ChatRequest], dict[str, Any]]:
    """Reflections that each ask a query not asked before."""
    counter = itertools.count(1)
    return lambda _request: reflection([f"tide question {next(counter)}"])


def note(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)
