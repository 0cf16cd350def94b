"""`make demo`: a real research run, fully offline.

Starts the tiny-model rig (gemma3 270M behind the Ollama API), generates a small corpus from
the Python standard library's own documentation (pydoc, at run time), and researches a
question over it with ponder's research loop. The tiny model writes fluent nonsense; the
point is that every part runs for real, with no Ollama and no network.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["json", "csv", "sqlite3", "pathlib", "itertools", "functools", "heapq", "bisect"]
QUESTION = "How do I read and write JSON files in Python?"


def main() -> int:
    import os

    work = ROOT / ".demo"
    os.environ.setdefault("PONDER_DATA_DIR", str(work / "data"))
    os.environ.setdefault("PONDER_CACHE_DIR", str(work / "cache"))
    os.environ.setdefault("PONDER_MODEL_DIR", str(ROOT / ".cache"))

    from ponder.testing import TINY_MODEL, Rig
    from ponder.testing.corpus import pydoc_corpus
    from ponder.testing.tiny import TinyModelBackend

    corpus = work / "corpus"
    pydoc_corpus(corpus, MODULES)
    print(f"corpus: {len(MODULES)} pydoc pages in {corpus}")
    # As with Ollama, only num_predict bounds an answer. The model is freed when the block
    # ends, not while the interpreter exits (where llama.cpp's thread would segfault).
    with TinyModelBackend(max_predict=1024) as backend, Rig(backend, models=(TINY_MODEL,)) as rig:
        print(f"tiny model loaded in {backend.load_seconds:.1f}s")
        settings = {
            "model": TINY_MODEL,
            "ollama_base_url": rig.url,
            "search": "local",
            "docs": [str(corpus)],
            "mode": "loop",
            "max_loops": 2,
            "queries_per_round": 2,
        }
        started = time.perf_counter()
        report, phases = asyncio.run(_run(settings))
        wall = time.perf_counter() - started
    out = work / "report.md"
    out.write_text(report.markdown, encoding="utf-8")
    stats = report.stats
    print(report.markdown)
    print(
        f"rounds {stats.rounds} · LLM calls {stats.llm_calls} · prompt tokens "
        f"{stats.prompt_tokens} · completion tokens {stats.completion_tokens} · "
        f"{wall:.1f}s wall"
    )
    for phase, (tokens, seconds) in phases.items():
        print(f"  {phase}: {tokens} tokens, {seconds:.1f}s")
    kind = "extractive (the model's prose was unusable)" if stats.extractive_report else "written"
    print(f"report {kind}; {stats.generations_stopped} generation(s) stopped mid-stream")
    print(f"report written to {out}")
    return 0


async def _run(settings: dict[str, Any]) -> tuple[Any, dict[str, tuple[int, float]]]:
    """The report, and tokens and seconds per phase (each search round, then the report)."""
    from ponder import Report, stream

    phases: dict[str, tuple[int, float]] = {}
    phase = "planning"
    report = None
    async for item in stream(QUESTION, **settings):
        if isinstance(item, Report):
            report = item
        elif item.kind == "round_start":
            phase = f"round {item.data['round']}"
        elif item.kind == "node_start" and item.node == "finalize_summary":
            phase = "report"
        elif item.kind == "node_end":
            tokens, seconds = phases.get(phase, (0, 0.0))
            phases[phase] = (tokens + int(item.data["tokens"]), seconds + item.data["seconds"])
    assert report is not None
    return report, phases


if __name__ == "__main__":
    sys.exit(main())
