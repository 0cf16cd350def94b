"""What research costs with a real model: LLM calls and tokens of focused runs of 1-3
rounds and of a deep run with three researchers (gemma3 270M), and ponder's own overhead,
the wall time not spent waiting on the model or search (target < 2 %)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from growth import bench_growth_tiny
from tides import TOPIC, note, reflection, research, tiny_config

from ponder.core.result import Report
from ponder.testing import TINY_MODEL, ChatRequest, Reply, Rig


class NeverSufficient:
    """The tiny model for every call, but its Reflection always asks for a new round.

    Its own output is kept (so its tokens are real) and only the decision is overridden,
    so a run has exactly ``max_loops`` rounds.
    """

    def __init__(self, tiny: Any) -> None:
        self.tiny = tiny
        self.counter = itertools.count(1)

    def answer(self, request: ChatRequest) -> Any:
        reply = self.tiny.answer(request)
        if request.schema_title == "Reflection" and isinstance(reply, Reply):
            reply.content = json.dumps(reflection([f"tide question {next(self.counter)}"]))
        return reply

    def interrupt(self) -> None:
        """The rig stops the model's generation when it stops."""
        self.tiny.interrupt()


def cost(report: Report) -> dict[str, Any]:
    s = report.stats
    return {
        "rounds": s.rounds,
        "llm_calls": s.llm_calls,
        "prompt_tokens": s.prompt_tokens,
        "completion_tokens": s.completion_tokens,
        "total_tokens": s.prompt_tokens + s.completion_tokens,
        "wall_seconds": s.wall_seconds,
        "fallbacks": s.fallbacks,
    }


def overhead(report: Report) -> dict[str, Any]:
    s = report.stats
    waiting = s.model_seconds + s.search_seconds
    own = max(s.wall_seconds - waiting, 0.0)
    return {
        "wall_seconds": round(s.wall_seconds, 3),
        "model_seconds": round(s.model_seconds, 3),
        "search_seconds": round(s.search_seconds, 3),
        "own_seconds": round(own, 3),
        "own_pct": round(100 * own / s.wall_seconds, 2) if s.wall_seconds else 0.0,
        "target_met": own < 0.02 * s.wall_seconds,
    }


def bench_tiny(corpus: Path, growth: bool) -> dict[str, Any]:
    from ponder.testing.tiny import TinyModelBackend, model_path

    model_path()
    with (
        TinyModelBackend(n_ctx=4096, max_predict=64) as tiny,
        Rig(NeverSufficient(tiny), models=(TINY_MODEL,)) as rig,
    ):
        results: dict[str, Any] = {"model": TINY_MODEL, "load_seconds": round(tiny.load_seconds, 2)}
        research(TOPIC, **tiny_config(rig, corpus, max_loops=1))  # warm-up: caches, index
        focused = {}
        for loops in (1, 2, 3):
            report = research(TOPIC, **tiny_config(rig, corpus, max_loops=loops))
            focused[f"{loops}_rounds"] = cost(report)
            note(f"tiny focused, {loops} round(s): {report.stats.wall_seconds} s")
            if loops == 3:
                results["overhead"] = overhead(report)
        results["focused"] = focused
        deep = research(
            "Tides: causes, harbours and the Moon",
            **tiny_config(
                rig,
                corpus,
                mode="deep",
                max_loops=1,
                queries_per_round=1,
                max_supervisor_rounds=1,
                max_concurrent_researchers=3,
            ),
        )
        note(f"tiny deep, 3 researchers: {deep.stats.wall_seconds} s")
        if not deep.markdown.startswith("# ") or not deep.stats.llm_calls:
            raise SystemExit(f"the tiny model's deep run wrote no report:\n{deep.markdown[:300]}")
        results["deep_3_researchers"] = {
            **cost(deep),
            "backend": "tiny",
            "overhead": overhead(deep),
        }
        if growth:
            results["growth"] = bench_growth_tiny(rig, corpus)
    return results
