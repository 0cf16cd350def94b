"""A token budget, end to end with the scripted model over pages of the Python docs: the loop
stops in time to write its report, the run's tokens (as the model server counts them) stay
within the budget, and the report cites its sources and says what ended the research. A
budget too tight for the model's report still ends in one, built from the sources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import python_docs
from support.reports import docs_corpus

from ponder import aresearch
from ponder.testing import Rig

THREE_ROUNDS = [["sorting lists"], ["itertools recipes"], ["collections types"]]
# Each round finds pages it had not read, so each costs a summary and a reflection.
QUESTION = "How do sorting, itertools and collections work together in Python?"


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    return docs_corpus(python_docs(), tmp_path / "docs")


def settings(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    return {
        "model": "scripted", "ollama_base_url": rig.url, "search": "local",
        "docs": [str(corpus)], "mode": "loop", "max_loops": 6,
        # A small report reserve, so a budget of a few thousand tokens has rounds to plan.
        "num_predict": 256, "summary_tokens": 200, "evidence_tokens": 300, **extra,
    }  # fmt: skip


def deep_settings(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    """The deep pipeline with no question asked, one researcher at a time unless said."""
    return settings(rig, corpus, **{"mode": "deep", "max_concurrent_researchers": 1,
                                    "allow_clarification": False, **extra})  # fmt: skip


def supervised(scripted: Any, rounds: list[list[str]]) -> None:
    """The supervisor's sub-topics: each round's in turn, then none."""
    planned = iter(rounds)
    scripted.overrides["SupervisorDecision"] = lambda _request: {
        "reflection": "r", "subtopics": next(planned, []), "research_complete": False,
    }  # fmt: skip


def tokens(report: Any) -> int:
    return int(report.stats.prompt_tokens + report.stats.completion_tokens)


async def test_a_token_budget_stops_the_rounds_in_time_for_a_report_within_it(
    rig: Rig, pages: Path
) -> None:
    free = await aresearch(QUESTION, **settings(rig, pages))
    assert free.stats.rounds == 6 and not free.stats.budget_ended
    budget = tokens(free) * 8 // 10
    held = await aresearch(QUESTION, **settings(rig, pages, token_budget=budget))
    assert tokens(held) <= budget, (tokens(held), budget)
    assert 1 <= held.stats.rounds < free.stats.rounds
    assert held.stats.budget_ended == "tokens"
    assert held.citations and "[1]" in held.markdown, "it ends in a report that cites"
    assert not held.stats.extractive_report, "the model still wrote it"
    said = [w for w in held.stats.warnings if "token budget" in w]
    assert said and f"after {held.stats.rounds} of 6 round(s)" in said[0]
    assert held.markdown.split("\n")[2] == f"*{said[0]}*", "the report says so, under its title"


async def test_a_budget_spent_before_the_report_still_ends_in_one_from_the_sources(
    rig: Rig, corpus: Path
) -> None:
    tight = {"token_budget": 2000, "num_predict": 1024, "summary_tokens": 700,
             "evidence_tokens": 1200}  # fmt: skip
    held = await aresearch("How do tides work?", **settings(rig, corpus, **tight))
    assert held.stats.rounds == 1 and held.stats.budget_ended == "tokens"
    assert held.stats.extractive_report and held.citations
    report_calls = [e for e in rig.log if e.schema is None]  # the report: plain text
    assert not report_calls, "no model call for a report the budget has no room for"
    assert tokens(held) <= 2000


async def test_in_the_deep_pipeline_a_budget_stops_new_rounds_of_researchers(
    rig: Rig, scripted: Any, pages: Path
) -> None:
    supervised(scripted, THREE_ROUNDS)
    deep = deep_settings(rig, pages, max_loops=2, max_supervisor_rounds=3)
    free = await aresearch(QUESTION, **deep)
    assert not free.stats.budget_ended and tokens(free) > 4000, tokens(free)
    supervised(scripted, THREE_ROUNDS)
    held = await aresearch(QUESTION, **deep, token_budget=tokens(free) * 6 // 10)
    assert held.stats.budget_ended == "tokens"
    assert held.stats.rounds < free.stats.rounds
    assert any("after 1 of 3 round(s)" in w or "after 2 of 3 round(s)" in w
               for w in held.stats.warnings)  # fmt: skip
    assert held.citations
    assert tokens(held) <= tokens(free) * 6 // 10, "its report is held to what is left"


async def test_a_deep_report_with_no_room_left_is_built_from_the_notes(
    rig: Rig, scripted: Any, pages: Path
) -> None:
    supervised(scripted, [["sorting lists", "itertools recipes"]] * 2)  # a round each run
    deep = deep_settings(
        rig, pages, max_loops=1, max_supervisor_rounds=1, max_concurrent_researchers=2
    )
    free = await aresearch(QUESTION, **deep)
    assert not free.stats.extractive_report
    calls = len(rig.log)
    # Room for the research, not for the report's reading of its notes on top.
    held = await aresearch(QUESTION, **deep, token_budget=max(2000, tokens(free) - 200))
    assert held.stats.extractive_report and held.citations
    assert not [e for e in rig.log[calls:] if e.schema is None], "no report call"
    assert tokens(held) <= max(2000, tokens(free) - 200)


async def test_each_round_after_the_first_says_the_time_left_and_the_terminal_shows_it(
    rig: Rig, pages: Path
) -> None:
    from ponder import stream
    from ponder.interfaces.cli.progress import ProgressState

    shown = ProgressState()
    starts = []
    async for item in stream(QUESTION, **settings(rig, pages, max_loops=3)):
        if getattr(item, "kind", "") == "round_start":
            starts.append(item.data)
            shown.apply(item)
            if "seconds_left" in item.data:
                assert "left" in shown.headline(1.0).split(" · ")[-1]
    assert [s["round"] for s in starts] == [1, 2, 3]
    assert "seconds_left" not in starts[0], "nothing is measured before the first round"
    left = [s["seconds_left"] for s in starts[1:]]
    assert all(seconds > 0 for seconds in left) and left[1] < left[0], left


async def test_each_round_of_researchers_after_the_first_says_the_time_left(
    rig: Rig, scripted: Any, pages: Path
) -> None:
    from ponder import stream

    supervised(scripted, THREE_ROUNDS)
    deep = deep_settings(rig, pages, max_loops=1, max_supervisor_rounds=3)
    rounds = [item.data async for item in stream(QUESTION, **deep)
              if getattr(item, "kind", "") == "supervisor"]  # fmt: skip
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert "seconds_left" not in rounds[0]
    assert all(r["seconds_left"] > 0 for r in rounds[1:]), rounds
