"""A run is a thread of turns: a follow-up is its next turn, and every earlier turn's
question and report stay readable, each read back from the checkpoint it finished in."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support import over_corpus
from support.edges import history

from ponder import Report, aresearch
from ponder.api import history as api_history
from ponder.api import stream_followup
from ponder.interfaces.cli import main
from ponder.testing import Rig

FIRST = "How do tides work?"
SECOND = "What do harbour pilots read?"


async def _follow_up(thread_id: str, question: str) -> Report:
    last = [item async for item in stream_followup(thread_id, question)][-1]
    assert isinstance(last, Report)
    return last


async def test_a_follow_up_keeps_the_first_turn_and_its_report(
    rig: Rig, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = await aresearch(FIRST, **over_corpus(rig, corpus, mode="loop", max_loops=1))
    calls_before = len(rig.chat_log())
    second = await _follow_up(first.thread_id, SECOND)
    assert second.topic == SECOND and second.markdown != first.markdown
    # Each turn counts what it cost, not what the thread has cost so far.
    assert second.stats.llm_calls == len(rig.chat_log()) - calls_before

    record = history().get(first.thread_id)
    assert record is not None and record.topic == FIRST, "the thread keeps its first question"
    assert record.questions == [FIRST, SECOND] and record.turns == 2

    turns = await api_history.turns(first.thread_id)
    assert [(t.number, t.question) for t in turns] == [(1, FIRST), (2, SECOND)]
    kept = [t.report for t in turns]
    assert kept[0] is not None and kept[1] is not None
    assert (kept[0].topic, kept[0].markdown, kept[0].citations) == (
        FIRST, first.markdown, first.citations,
    )  # fmt: skip
    assert (kept[1].markdown, kept[1].citations) == (second.markdown, second.citations)
    assert [k.stats.llm_calls for k in kept] == [first.stats.llm_calls, second.stats.llm_calls]
    assert all(t.ended is not None and t.ended >= t.started for t in turns)

    latest = await api_history.report(first.thread_id)
    assert latest is not None and latest.markdown == second.markdown
    assert latest.stats.llm_calls == second.stats.llm_calls, "read alone, the same cost"
    only_first = await api_history.reports(first.thread_id, turn=1)
    assert [r.markdown for r in only_first] == [first.markdown]
    both = await api_history.reports(first.thread_id)
    assert [r.topic for r in both] == [FIRST, SECOND]
    assert await api_history.reports(first.thread_id, turn=3) == []

    trail = await api_history.trail(first.thread_id)
    assert trail is not None and [t["question"] for t in trail["turns"]] == [FIRST, SECOND]
    assert trail["report"]["markdown"] == second.markdown
    one = await api_history.trail(first.thread_id, turn=1)
    assert one is not None and [t["turn"] for t in one["turns"]] == [1]
    assert one["report"]["markdown"] == first.markdown

    assert main(["runs"]) == 0
    assert f"{FIRST} (+1 follow-up)" in capsys.readouterr().out


async def test_a_run_from_before_turns_were_kept_is_one_turn_and_can_be_followed_up(
    rig: Rig, corpus: Path, isolated: Path
) -> None:
    first = await aresearch(FIRST, **over_corpus(rig, corpus, mode="loop", max_loops=1))
    with sqlite3.connect(isolated / "data" / "runs.sqlite") as conn:
        conn.execute("DELETE FROM turns")  # as an older ponder left it: no turns recorded
    turns = await api_history.turns(first.thread_id)
    assert [t.question for t in turns] == [FIRST]
    assert turns[0].report is not None and turns[0].report.markdown == first.markdown

    second = await _follow_up(first.thread_id, SECOND)
    turns = await api_history.turns(first.thread_id)
    assert [t.question for t in turns] == [FIRST, SECOND]
    assert [t.report.markdown for t in turns if t.report] == [first.markdown, second.markdown]


async def test_the_trail_of_a_run_stopped_before_its_report_keeps_what_it_read(
    rig: Rig, corpus: Path
) -> None:
    from ponder.api import new_thread_id, stream

    thread_id = new_thread_id()
    events = stream(FIRST, thread_id=thread_id, **over_corpus(rig, corpus, max_loops=1))
    async for item in events:
        if getattr(item, "kind", "") == "reflection":
            break  # stopped once its sources were read and kept, before any report
    await events.aclose()
    trail = await api_history.trail(thread_id)
    assert trail is not None and trail["report"] is None
    assert trail["sources"] and trail["queries"], "what the run read so far is in its trail"


async def test_a_follow_up_stopped_and_resumed_counts_its_own_cost(rig: Rig, corpus: Path) -> None:
    from ponder.api import stream_resume

    first = await aresearch(FIRST, **over_corpus(rig, corpus, mode="loop", max_loops=1))
    calls_before = len(rig.chat_log())
    events = stream_followup(first.thread_id, SECOND)
    async for item in events:
        if getattr(item, "kind", "") == "reflection":
            break  # stopped mid-turn, as Ctrl-C or the page's Stop does
    await events.aclose()
    resumed = [item async for item in stream_resume(first.thread_id)][-1]
    assert isinstance(resumed, Report) and resumed.topic == SECOND
    assert resumed.stats.llm_calls == len(rig.chat_log()) - calls_before, "this turn's calls"
