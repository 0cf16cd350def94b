"""A run holds its claim while it runs: renewed as it goes, so other machines leave it alone,
and given up when another process takes it over (the run stops at its next step and
records nothing over the new holder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import over_corpus
from support.edges import history
from support.racing import machine, run_history_sql

from ponder.api import aresearch, stream
from ponder.core.errors import RunBusyError, RunTakenOverError
from ponder.testing import Rig, ScriptedBackend

LEASE = 2  # seconds: renewed every half second


async def test_a_running_run_renews_its_claim_and_stops_when_taken_over(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_RUN_LEASE_SECONDS", str(LEASE))
    scripted.delay = 0.2
    # Never sufficient: the run goes on for many rounds, until it is taken over.
    scripted.overrides["Reflection"] = {
        "is_sufficient": False,
        "knowledge_gap": "more",
        "follow_up_queries": ["moon orbit"],
        "scope": "focused",
        "subtopics": [],
    }
    settings = over_corpus(rig, corpus, mode="loop", max_loops=10)
    events = stream("How do tides work?", **settings)
    await anext(events)
    [record] = history().recent()
    thread = record.thread_id
    (first_lease,) = run_history_sql("SELECT lease FROM {runs}")
    while run_history_sql("SELECT lease FROM {runs}")[0] == first_lease:
        await anext(events)  # until the run renewed its claim, on its own
    with pytest.raises(RunBusyError, match="running on"):
        machine("laptop").start(thread, "How do tides work?", {})
    machine("laptop").start(thread, "How do tides work?", {}, force=True)
    with pytest.raises(RunTakenOverError, match="taken over"):
        async for _ in events:
            pass
    held = history().get(thread)
    assert held is not None and (held.status, held.host) == ("running", "laptop")


async def test_a_run_taken_over_while_its_question_waited_stops_when_answered(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    asked = iter([True])
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": next(asked, False),
        "question": "Which sea?",
        "verification": "",
    }
    calls: list[int] = []

    def ask(question: str) -> str:  # a terminal's: it holds the event loop, and the lease
        [record] = history().recent()
        run_history_sql("UPDATE {runs} SET lease = {now} - 1")  # the user thought a while
        machine("laptop").start(record.thread_id, record.topic, {})  # its lease ran out
        calls.append(len(rig.chat_log()))
        return "the North Sea"

    with pytest.raises(RunTakenOverError):
        await aresearch("How do tides work?", ask=ask, **over_corpus(rig, corpus, mode="deep"))
    assert len(rig.chat_log()) == calls[0], "no step ran after the answer"
    [record] = history().recent()
    assert (record.status, record.host) == ("running", "laptop")
