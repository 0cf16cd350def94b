"""A budget holds one whole turn: handed from the loop to the deep pipeline, the turn's
tokens stay within it (the loop's count too), and a follow-up's budget counts its own turn,
not the thread's earlier ones. Scripted model, pages of the Python docs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import python_docs
from support.reports import docs_corpus
from test_budgets import QUESTION, settings, supervised, tokens

from ponder import Report, aresearch
from ponder.api import stream_followup
from ponder.testing import Rig

BROAD = {
    "is_sufficient": False, "knowledge_gap": "g", "follow_up_queries": ["itertools recipes"],
    "scope": "broad", "subtopics": ["sorting lists", "collections types"],
}  # fmt: skip


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    return docs_corpus(python_docs(), tmp_path / "docs")


async def test_handed_to_the_deep_pipeline_the_turn_stays_within_its_token_budget(
    rig: Rig, scripted: Any, pages: Path
) -> None:
    scripted.overrides["Reflection"] = BROAD
    rounds = [["sorting lists", "collections types"], ["itertools recipes"]]
    auto = settings(
        rig, pages, mode="auto", max_loops=2, max_supervisor_rounds=2,
        max_concurrent_researchers=2, allow_clarification=False,
    )  # fmt: skip
    supervised(scripted, rounds)
    free = await aresearch(QUESTION, **auto)
    assert "supervisor" in free.stats.node_seconds, "the loop handed the question on"
    for tenths in (4, 6, 8):
        supervised(scripted, rounds)
        budget = tokens(free) * tenths // 10
        held = await aresearch(QUESTION, **auto, token_budget=budget)
        assert tokens(held) <= budget, (tenths, tokens(held), budget)
        assert held.stats.budget_ended == "tokens" and held.citations


async def test_a_follow_ups_budget_counts_its_own_turn_not_the_threads(
    rig: Rig, pages: Path
) -> None:
    first = await aresearch(QUESTION, **settings(rig, pages))
    budget = tokens(first)  # room for a few rounds, not on top of the first turn's tokens
    second = await _follow_up(first.thread_id, "Which of them keeps order?", token_budget=budget)
    assert tokens(second) <= budget
    assert second.stats.rounds >= 2, "the first turn's tokens were not charged to it"


async def test_a_budget_that_ended_a_turn_is_not_said_to_end_the_next(
    rig: Rig, pages: Path
) -> None:
    first = await aresearch(QUESTION, **settings(rig, pages, token_budget=2500))
    assert first.stats.budget_ended == "tokens"
    second = await _follow_up(first.thread_id, "Which of them keeps order?", token_budget=None)
    assert second.stats.budget_ended == ""
    assert not [w for w in second.stats.warnings if "budget" in w]


async def _follow_up(thread_id: str, question: str, **settings: Any) -> Report:
    last = [item async for item in stream_followup(thread_id, question, **settings)][-1]
    assert isinstance(last, Report)
    return last
