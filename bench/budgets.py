"""Budgets: how close a run with ``--time-budget`` ends to its limit, and what a run with
``--token-budget`` spends, over the Python docs' HTML pages (tests/support/reports.py).

The scripted rig is paced as a slow local model: each call takes ``LATENCY`` seconds and
``PER_TOKEN`` more per token it writes, so an unbudgeted six-round run takes about a
minute. Its reports are short (a few dozen tokens), and a budget keeps room for a report
of ``num_predict`` tokens (here ``REPORT_TOKENS``), so a budgeted run ends early rather than
late. The time budget is 60 % of that
run's wall time (target: the budgeted run ends no later than 10 % past its budget); the
token budgets are 50, 70 and 90 % of an unbudgeted run's tokens as the rig counts them
(target: never more). Every run must end in a report that cites its sources.

The unbudgeted run's live estimates of its time left (each round's ``seconds_left``) are
compared with the time it really had left: the estimate standing at mid-run, and every one
after it, should be within 25 %.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from workspace import ROOT

from ponder import stream
from ponder.core.result import Report
from ponder.testing import Rig, ScriptedBackend
from ponder.testing.pydocs import html_root

sys.path.insert(0, str(ROOT / "tests"))
from support.reports import docs_corpus  # (the tests' pages of the docs)

QUESTION = "How do sorting, itertools and collections work together in Python?"
LATENCY = 2.0  # seconds a model call takes before it writes
PER_TOKEN = 0.03  # and per token it writes (about 33 tokens a second)
REPORT_TOKENS = 400  # num_predict: what a small model's report may write
TIME_SHARE = 0.6
TOKEN_SHARES = (0.5, 0.7, 0.9)
LATE_AT_MOST = 0.10
ESTIMATE_OFF_AT_MOST = 0.25
ESTIMATED = ("round_start", "supervisor")  # the events that say the time left
SUBTOPICS = [["sorting lists"], ["itertools recipes"], ["collections types"],
             ["functools tools"]]  # fmt: skip


def bench_budgets(work: Path) -> dict[str, Any]:
    corpus = docs_corpus(html_root(ROOT / ".cache"), work / "pydocs")
    paced = ScriptedBackend(delay=LATENCY, token_delay=PER_TOKEN)
    with Rig(paced, models=("scripted",)) as rig:
        base = {"model": "scripted", "ollama_base_url": rig.url, "search": "local",
                "docs": [str(corpus)], "mode": "loop", "max_loops": 6,
                "num_predict": REPORT_TOKENS}  # fmt: skip
        estimates: list[tuple[float, float]] = []
        free, free_wall = _run(base, estimates)
        budget = round(TIME_SHARE * free_wall, 1)
        held, wall = _run({**base, "time_budget": budget})
        timed = {
            "free_seconds": round(free_wall, 1), "free_rounds": free.stats.rounds,
            "budget_seconds": budget, "seconds": round(wall, 1), "rounds": held.stats.rounds,
            "ended_by": held.stats.budget_ended, "cites": bool(held.citations),
            "target_met": wall <= budget * (1 + LATE_AT_MOST) and bool(held.citations),
        }  # fmt: skip
        deep_estimates: list[tuple[float, float]] = []
        topics = iter(SUBTOPICS)
        paced.overrides["SupervisorDecision"] = lambda _request: {
            "reflection": "r", "subtopics": next(topics, []), "research_complete": False,
        }  # fmt: skip
        deep = {**base, "mode": "deep", "max_loops": 1, "max_supervisor_rounds": 4,
                "max_concurrent_researchers": 1, "allow_clarification": False}  # fmt: skip
        _, deep_wall = _run(deep, deep_estimates)
        rig.backend = ScriptedBackend()  # tokens do not depend on pace
        free_tokens = _tokens(_run(base)[0])
        tokened = []
        for share in TOKEN_SHARES:
            limit = max(2000, int(share * free_tokens))
            report, _ = _run({**base, "token_budget": limit})
            tokened.append({
                "budget": limit, "tokens": _tokens(report), "rounds": report.stats.rounds,
                "extractive": report.stats.extractive_report, "cites": bool(report.citations),
            })  # fmt: skip
    within = all(t["tokens"] <= t["budget"] and t["cites"] for t in tokened)
    return {
        "time": timed,
        "estimate": _estimates_against(estimates, free_wall),
        "deep_estimate": _estimates_against(deep_estimates, deep_wall),
        "tokens": {"free_tokens": free_tokens, "runs": tokened, "target_met": within},
    }


def _run(
    settings: dict[str, Any], estimates: list[tuple[float, float]] | None = None
) -> tuple[Any, float]:
    """The run's report and wall time; ``estimates``: each round's estimate of the time
    left, with when it came (seconds from the start)."""
    started = time.perf_counter()

    async def run() -> Any:
        report = None
        async for item in stream(QUESTION, **settings):
            if isinstance(item, Report):
                report = item
            elif item.kind in ESTIMATED and "seconds_left" in item.data:
                at = time.perf_counter() - started
                (estimates if estimates is not None else []).append((at, item.data["seconds_left"]))
        return report

    report = asyncio.run(run())
    return report, time.perf_counter() - started


def _estimates_against(estimates: list[tuple[float, float]], wall: float) -> dict[str, Any]:
    """Each estimate beside the time that was really left; the worst from mid-run on."""
    rows = [
        {"at": round(at, 1), "estimate": round(left, 1), "actual": round(wall - at, 1),
         "off": round(abs(left - (wall - at)) / max(wall - at, 1e-6), 3)}
        for at, left in estimates
    ]  # fmt: skip
    standing = [row for row in rows if row["at"] <= wall / 2][-1:]
    judged = standing + [row for row in rows if row["at"] > wall / 2]
    worst = max((row["off"] for row in judged), default=None)
    return {
        "wall": round(wall, 1), "rounds": rows, "worst_from_mid_run": worst,
        "target_met": worst is not None and worst <= ESTIMATE_OFF_AT_MOST,
    }  # fmt: skip


def _tokens(report: Any) -> int:
    return int(report.stats.prompt_tokens + report.stats.completion_tokens)


def table_rows(budgets: dict[str, Any]) -> list[tuple[str, str]]:
    if not budgets or "time" not in budgets:
        return []
    timed, tokened = budgets["time"], budgets["tokens"]
    late = 100 * (timed["seconds"] / timed["budget_seconds"] - 1)
    mark = "  ✓ target met" if timed["target_met"] else "  ✗ target MISSED"
    rows = [
        (
            f"budgets: --time-budget {timed['budget_seconds']} s (a paced model)",
            f"ended at {timed['seconds']} s ({late:+.0f} %), {timed['rounds']} of "
            f"{timed['free_rounds']} rounds (unbudgeted: {timed['free_seconds']} s)" + mark,
        )
    ]
    spent = ", ".join(
        f"{t['budget']:,} → {t['tokens']:,} ({t['rounds']} rounds"
        + (", extractive" if t["extractive"] else "")
        + ")"
        for t in tokened["runs"]
    )
    mark = "  ✓ target met" if tokened["target_met"] else "  ✗ target MISSED"
    rows.append((f"budgets: --token-budget (unbudgeted {tokened['free_tokens']:,})", spent + mark))
    for key, label in (("estimate", "the loop"), ("deep_estimate", "the deep pipeline")):
        rows += _estimate_rows(budgets.get(key), label)
    return rows


def _estimate_rows(estimate: dict[str, Any] | None, label: str) -> list[tuple[str, str]]:
    if not estimate:
        return []
    worst = estimate["worst_from_mid_run"]
    mark = "  ✓ target met" if estimate["target_met"] else "  ✗ target MISSED"
    said = ", ".join(f"{r['estimate']:g} s for {r['actual']:g} s" for r in estimate["rounds"])
    off = f"{100 * worst:.0f} %" if worst is not None else "none made"
    return [
        (
            f"budgets: time left in {label}, estimated live",
            f"{said}; worst from mid-run {off}" + mark,
        )
    ]
