"""Parallel researchers: the deep pipeline's research phase with 3 researchers at once
against 1 at a time, on a scripted rig that answers each call after a delay (target ≥ 2.5×
faster)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tides import base, research

from ponder.testing import Rig, ScriptedBackend


def bench_researchers(corpus: Path, delay: float = 0.3) -> dict[str, Any]:
    figures: dict[str, Any] = {"delay_per_call_s": delay}
    for slots in (3, 1):
        decisions = iter([["tide causes", "moon orbit", "harbour pilots"]])
        backend = ScriptedBackend(delay=delay)
        backend.overrides["SupervisorDecision"] = lambda _r, d=decisions: {
            "reflection": "r",
            "subtopics": next(d, []),
            "research_complete": False,
        }
        with Rig(backend) as rig:
            report = research(
                "Tides, the Moon and harbours",
                **base(
                    rig,
                    corpus,
                    mode="deep",
                    max_loops=1,
                    max_supervisor_rounds=3,
                    max_concurrent_researchers=slots,
                ),
            )
            work = [e for e in rig.chat_log() if e.schema in ("QueryPlan", "SummaryUpdate")]
            work += [e for e in rig.chat_log() if e.schema == "Reflection"]
        phase = max(e.end for e in work) - min(e.start for e in work)
        figures[f"{slots}_concurrent"] = {
            "researcher_phase_s": round(phase, 3),
            "run_wall_s": report.stats.wall_seconds,
            "researchers": sum(1 for e in work if e.schema == "QueryPlan"),
        }
    one, three = figures["1_concurrent"], figures["3_concurrent"]
    figures["speedup_researcher_phase"] = round(
        one["researcher_phase_s"] / three["researcher_phase_s"], 2
    )
    figures["speedup_whole_run"] = round(one["run_wall_s"] / three["run_wall_s"], 2)
    figures["target_met"] = figures["speedup_researcher_phase"] >= 2.5
    return figures
