"""Several Ollama hosts: a deep run against 2 rigs that each answer one call at a time,
like one GPU each with Ollama's default parallelism, against 1 such rig (target ≥ 1.7×
faster)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from tides import base, fresh_followups, research

from ponder.testing import Rig, ScriptedBackend


def bench_hosts(corpus: Path, delay: float = 0.3) -> dict[str, Any]:
    """A deep run with 4 researchers against 1 and 2 rigs that each answer one call at a
    time after a fixed delay. Each researcher runs 4 rounds (fresh follow-up queries), so
    the run is mostly research, as a deep run on a real question is; brief, supervisor and
    report calls stay serial (4 of 36 calls, so 1.8x is the ceiling)."""
    figures: dict[str, Any] = {"delay_per_call_s": delay}
    for count in (1, 2):
        with contextlib.ExitStack() as stack:
            # One backend behind every rig: the same decisions whichever rig is asked.
            topics = iter([[f"tides aspect {i}" for i in range(4)]])
            backend = ScriptedBackend(delay=delay)
            backend.overrides["SupervisorDecision"] = lambda _r, t=topics: {
                "reflection": "r",
                "subtopics": next(t, []),
                "research_complete": False,
            }
            backend.overrides["Reflection"] = fresh_followups()
            rigs = [stack.enter_context(Rig(backend, one_at_a_time=True)) for _ in range(count)]
            config = base(
                rigs[0],
                corpus,
                mode="deep",
                max_loops=4,
                max_supervisor_rounds=2,
                max_concurrent_researchers=4,
                allow_clarification=False,
            )
            config["ollama_base_url"] = ",".join(rig.url for rig in rigs)
            report = research("Tides, the Moon and harbours", **config)
        figures[f"{count}_hosts"] = {
            "run_wall_s": report.stats.wall_seconds,
            "calls": report.stats.llm_calls,
            "calls_per_host": list(report.stats.host_calls.values()),
        }
    figures["speedup"] = round(
        figures["1_hosts"]["run_wall_s"] / figures["2_hosts"]["run_wall_s"], 2
    )
    figures["target_met"] = figures["speedup"] >= 1.7
    return figures
