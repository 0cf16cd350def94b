"""Budgets with the tiny model (gemma3 270M), as a newcomer runs ponder: the default mode
(a broad verdict hands the question to the deep pipeline, whose researchers share the one
model server), over the Python docs' HTML pages. An unbudgeted run first; then a time
budget of 60 % of its wall time and a token budget of 60 % of its tokens.

Targets: the time-budgeted run ends no later than 10 % past its budget, the token-budgeted
run spends no more than its budget (prompt and output tokens as the model server counts
them), and both end in a report that cites its sources: its Sources section lists what it
cites or quotes. The tiny model's prose is often cut whole (its claims are not in the
sources), and the report is then extractive: quotes, each under its source's number. How
many findings kept a checked citation is shown beside it.
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
from ponder.testing import TINY_MODEL, Rig
from ponder.testing.pydocs import html_root

sys.path.insert(0, str(ROOT / "tests"))
from support.reports import docs_corpus  # (the tests' pages of the docs)

QUESTION = "How do I read a CSV file with a header row, and sort its rows by date, in Python?"
SHARE = 0.6
LATE_AT_MOST = 0.10
SHORTEST_TIME_BUDGET = 30  # seconds: ponder refuses less


def bench_budgets_tiny(work: Path) -> dict[str, Any]:
    from ponder.testing.tiny import TinyModelBackend, model_path

    model_path()
    corpus = docs_corpus(html_root(ROOT / ".cache"), work / "budget-pages")
    with TinyModelBackend(max_predict=1024) as tiny, Rig(tiny, models=(TINY_MODEL,)) as rig:
        base = {"model": TINY_MODEL, "ollama_base_url": rig.url, "search": "local",
                "docs": [str(corpus)]}  # fmt: skip
        free = _run(base)
        seconds = max(SHORTEST_TIME_BUDGET, round(SHARE * free["seconds"]))
        timed = _run({**base, "time_budget": seconds})
        tokens = int(SHARE * free["tokens"])
        tokened = _run({**base, "token_budget": tokens})
    timed["budget"], tokened["budget"] = seconds, tokens
    timed["target_met"] = timed["seconds"] <= seconds * (1 + LATE_AT_MOST) and timed["sourced"]
    tokened["target_met"] = tokened["tokens"] <= tokens and tokened["sourced"]
    return {"model": TINY_MODEL, "free": free, "time": timed, "tokens": tokened,
            "target_met": timed["target_met"] and tokened["target_met"]}  # fmt: skip


def _run(settings: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()

    async def run() -> Report:
        items = [item async for item in stream(QUESTION, **settings)]
        assert isinstance(items[-1], Report)
        return items[-1]

    report = asyncio.run(run())
    stats = report.stats
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "tokens": stats.prompt_tokens + stats.completion_tokens,
        "rounds": stats.rounds, "handed_off": "supervisor" in stats.node_seconds,
        "ended_by": stats.budget_ended, "citations": len(report.citations),
        "sourced": bool(report.cited_sources()), "extractive": stats.extractive_report,
    }  # fmt: skip


def table_rows(budgets: dict[str, Any]) -> list[tuple[str, str]]:
    if not budgets or "time" not in budgets:
        return []
    free, timed, tokened = budgets["free"], budgets["time"], budgets["tokens"]
    deep = ", deep pipeline" if free["handed_off"] else ""
    rows = [(
        f"budgets, {budgets['model']}: unbudgeted",
        f"{free['seconds']} s, {free['tokens']:,} tokens, {free['rounds']} rounds{deep}; "
        f"{free['citations']} finding(s) cited",
    )]  # fmt: skip
    late = 100 * (timed["seconds"] / timed["budget"] - 1)
    rows.append((
        f"budgets, {budgets['model']}: --time-budget {timed['budget']} s",
        f"ended at {timed['seconds']} s ({late:+.0f} %), {timed['rounds']} rounds"
        + (", deep pipeline" if timed["handed_off"] else "") + _mark(timed),
    ))  # fmt: skip
    rows.append((
        f"budgets, {budgets['model']}: --token-budget {tokened['budget']:,}",
        f"spent {tokened['tokens']:,}, {tokened['rounds']} rounds"
        + (", deep pipeline" if tokened["handed_off"] else "") + _mark(tokened),
    ))  # fmt: skip
    return rows


def _mark(run: dict[str, Any]) -> str:
    kind = "extractive, " if run["extractive"] else ""
    cites = f"; {kind}{run['citations']} finding(s) cited"
    cites += "" if run["sourced"] else ", no source named"
    return cites + ("  ✓ target met" if run["target_met"] else "  ✗ target MISSED")
