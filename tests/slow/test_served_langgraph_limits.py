"""What a caller of a team's LangGraph Server (`langgraph dev` with ponder's auth handler)
may spend and steer, through langgraph-sdk: a thread's state, a run's goto or update, a
webhook and a deeper recursion_limit are refused (403) while answering a clarifying
question still resumes a run; a caller above an operator ceiling is refused with the
ceiling named, and one with as many runs pending or running as the operator allows gets 429
until one ends."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support import ask_once
from support.langgraph_dev import TEAM_MAX_LOOPS, TEAM_RUNS, TOKENS, Team
from test_served_langgraph import detail_of, refused, status_of

from ponder import aresearch
from ponder.core.errors import RemoteServerError
from ponder.testing import ScriptedBackend

TOPIC = {"topic": "How do tides work?"}
LOOP = {"search": "local", "mode": "loop", "max_loops": 1}


async def test_a_threads_state_is_not_caller_input(
    team: Team, team_scripted: ScriptedBackend
) -> None:
    client = team.client("alice")
    thread = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread, "ponder", input=TOPIC, context=LOOP)
    tampered = {"research_loop_count": -50, "queries": ["x"] * 99}
    for as_node in (None, "reflect"):
        said = await refused(client.threads.update_state(thread, tampered, as_node=as_node))
        assert "cannot write a thread's state on this server" in said
    values = (await client.threads.get_state(thread))["values"]
    assert values["research_loop_count"] == 1 and values["queries"] != ["x"] * 99
    # A thread created with state in it: LangGraph creates the thread, the state is refused.
    superstep = {"updates": [{"values": {"research_loop_count": -50}, "as_node": "reflect"}]}
    try:
        made = await client.threads.create(supersteps=[superstep])
    except httpx.HTTPStatusError as exc:
        assert status_of(exc) == 403, exc.response.text
    else:
        assert "cannot write a thread's state" in str(made)  # the 201 LangGraph answers
    # What stays the caller's own: the thread's metadata (ponder --server keeps its options).
    kept = await client.threads.update(thread, metadata={"ponder_topic": "tides"})
    assert kept["metadata"]["ponder_topic"] == "tides" and kept["metadata"]["owner"] == "alice"


async def test_a_run_may_resume_a_question_but_not_steer_the_graph_or_post_its_output(
    team: Team, team_scripted: ScriptedBackend
) -> None:
    client = team.client("alice")
    thread = (await client.threads.create())["thread_id"]
    run = client.runs.create
    said = await refused(run(thread, "ponder", command={"goto": "web_research"}))
    assert "command may only resume a paused run" in said and "not goto" in said
    said = await refused(run(thread, "ponder", command={
        "resume": "x", "update": {"research_loop_count": -50}}))  # fmt: skip
    assert "not update" in said
    # A public address (LangGraph itself turns away loopback and reserved ones, with 422).
    said = await refused(run(thread, "ponder", input=TOPIC, webhook="http://93.184.215.14/h"))
    assert "webhook: this server sends a run's output to no address a caller names" in said
    said = await refused(run(thread, "ponder", input=TOPIC, config={"recursion_limit": 5000}))
    assert "recursion_limit=5000 is more than a run here may take" in said
    said = await refused(client.assistants.create("ponder", config={"recursion_limit": 5000}))
    assert "recursion_limit=5000" in said
    assert await client.runs.list(thread) == [] and team.rig.chat_log() == []
    # A clarifying question is still answered with command={"resume": ...}.
    ask_once(team_scripted)
    deep = {**LOOP, "mode": "deep", "allow_clarification": True}
    paused = await client.runs.wait(thread, "ponder", input=TOPIC, context=deep)
    assert "__interrupt__" in paused, paused
    done = await client.runs.wait(thread, "ponder", command={"resume": "The Atlantic coast"})
    assert str(done["report"]).startswith("# ")


async def test_a_caller_above_an_operator_ceiling_is_refused_with_the_ceiling_named(
    team: Team, team_scripted: ScriptedBackend
) -> None:
    client = team.client("alice")
    thread = (await client.threads.create())["thread_id"]
    above = TEAM_MAX_LOOPS + 1
    for sent in ({"context": {**LOOP, "max_loops": above}},
                 {"config": {"configurable": {**LOOP, "max_loops": above}}}):  # fmt: skip
        said = await refused(client.runs.create(thread, "ponder", input=TOPIC, **sent))
        assert f"max_loops={above} is above this server's ceiling of {TEAM_MAX_LOOPS}" in said
        assert "PONDER_CALLER_MAX_LOOPS" in said
    said = await refused(client.assistants.create("ponder", context={"max_loops": above}))
    assert "PONDER_CALLER_MAX_LOOPS" in said
    assert await client.runs.list(thread) == [] and team.rig.chat_log() == []
    with pytest.raises(httpx.HTTPStatusError) as caught:  # past the hard cap: invalid
        await client.runs.create(thread, "ponder", input=TOPIC, context={"max_loops": 21})
    assert status_of(caught.value) == 422
    done: Any = await client.runs.wait(
        thread, "ponder", input=TOPIC, context={**LOOP, "max_loops": TEAM_MAX_LOOPS}
    )
    assert str(done["report"]).startswith("# ")


async def test_a_caller_has_at_most_its_limit_of_runs_pending_or_running(
    team: Team, team_scripted: ScriptedBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = team.client("alice"), team.client("bob")
    queued: list[tuple[str, str]] = []
    try:
        for _ in range(TEAM_RUNS):  # runs that wait their turn (queued) still count
            thread = (await alice.threads.create())["thread_id"]
            run = await alice.runs.create(thread, "ponder", input=TOPIC, after_seconds=600)
            queued.append((thread, run["run_id"]))
        thread = (await alice.threads.create())["thread_id"]
        for attempt in (
            alice.runs.create(thread, "ponder", input=TOPIC, context=LOOP),
            alice.runs.wait(None, "ponder", input=TOPIC, context=LOOP),  # a thread-less run
        ):
            with pytest.raises(httpx.HTTPStatusError) as caught:
                await attempt
            assert status_of(caught.value) == 429, caught.value.response.text
            said = detail_of(caught.value)
            assert f"You already have {TEAM_RUNS} runs running or queued here" in said
            assert f"PONDER_CALLER_RUNS={TEAM_RUNS}" in said
        # `ponder --server` says the same.
        monkeypatch.setenv("PONDER_SERVER_TOKEN", TOKENS["alice"])
        with pytest.raises(RemoteServerError, match=f"PONDER_CALLER_RUNS={TEAM_RUNS}"):
            await aresearch("How do tides work?", server=team.url, **LOOP)
        assert team.rig.chat_log() == []
        # Another caller is not held to alice's runs.
        theirs = (await bob.threads.create())["thread_id"]
        assert (await bob.runs.wait(theirs, "ponder", input=TOPIC, context=LOOP))["report"]
        # One of alice's ends: she may start one again.
        await alice.runs.cancel(*queued.pop())
        done = await alice.runs.wait(thread, "ponder", input=TOPIC, context=LOOP)
        assert str(done["report"]).startswith("# ")
    finally:
        for thread, run_id in queued:
            await alice.runs.cancel(thread, run_id)
