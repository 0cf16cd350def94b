"""State written from outside the graph cannot make a run spend more than its settings
allow: a round count, supervisor round or question count the graph never writes ends that
work instead of extending it; a round searches at most queries_per_round queries and a
supervisor round sends at most max_concurrent_researchers researchers, whatever the state
holds; a served run's recursion_limit cannot exceed what any run needs. (LangGraph Server's
handler refuses such writes first: tests/slow/test_served_langgraph.py; these hold without it.)
And a second question on a thread gets the rounds its settings give, not the first's rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from support import over_corpus

from ponder.core.errors import CallerRefusedError
from ponder.graphs.main import graph_builder
from ponder.nodes.clarify_with_user import clarify_with_user
from ponder.nodes.route import route_research
from ponder.nodes.supervisor import route_supervisor, supervisor
from ponder.nodes.web_research import searchable
from ponder.settings.ceilings import MOST_SUPERSTEPS
from ponder.settings.run_settings import SERVED_KEY, run_configuration
from ponder.testing import Rig, ScriptedBackend

TOPIC = {"topic": "How do tides work?"}
NEVER_SUFFICIENT = {"is_sufficient": False, "knowledge_gap": "more", "scope": "focused",
                    "subtopics": [], "follow_up_queries": ["neap tides"]}  # fmt: skip


def never_sufficient() -> Any:
    rounds = iter(range(1, 1000))
    return lambda _r: {**NEVER_SUFFICIENT, "follow_up_queries": [f"tides {next(rounds)}"]}


async def events_of(graph: Any, values: Any, config: Any) -> list[dict[str, Any]]:
    return [e async for e in graph.astream(values, config, stream_mode="custom")]


def rounds_in(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("event") == "round_start"]


async def test_a_round_count_the_graph_never_writes_ends_the_loop(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = never_sufficient()
    graph = graph_builder().compile(checkpointer=InMemorySaver())
    settings = over_corpus(rig, corpus, mode="loop", max_loops=2, queries_per_round=1)
    config: Any = {"configurable": {"thread_id": "t-count", **settings}}
    assert len(rounds_in(await events_of(graph, TOPIC, config))) == 2
    for tampered in (-50, "0", 1.5):  # as a caller would write them to a served thread
        await graph.aupdate_state(
            config, {"research_loop_count": tampered, "queries": ["more tides"]}, as_node="reflect"
        )
        assert rounds_in(await events_of(graph, None, config)) == []  # no round more
    assert (await graph.aget_state(config)).values["report"]


async def test_a_round_searches_at_most_queries_per_round_whatever_the_state_holds(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = never_sufficient()
    graph = graph_builder().compile(checkpointer=InMemorySaver())
    settings = over_corpus(rig, corpus, mode="loop", max_loops=1, queries_per_round=2)
    config: Any = {"configurable": {"thread_id": "t-queries", **settings}}
    await graph.ainvoke(TOPIC, config, interrupt_before=["web_research"])
    flood = [f"tide query {i}" for i in range(40)]
    await graph.aupdate_state(config, {"queries": flood}, as_node="generate_query")
    [searched] = rounds_in(await events_of(graph, None, config))
    assert searched["queries"] == flood[:2]
    assert (await graph.aget_state(config)).values["queries_run"] == flood[:2]


def test_only_text_queries_of_a_searchable_length_are_searched() -> None:
    assert searchable(["a", "a", 7, {"q": 1}, "  b  c ", "x" * 5000], 8) == ["a", "b c", "x" * 300]
    assert searchable("not a list", 8) == [] and searchable(None, 8) == []


@pytest.mark.parametrize("count", [-50, -1, "2", None, True])
def test_a_tampered_count_routes_to_the_end(count: Any) -> None:
    state: Any = {"topic": "t", "research_loop_count": count, "queries": ["q"], "reflection": {}}
    config: Any = {"configurable": {"mode": "loop", "max_loops": 3}}
    assert route_research(state, config) == "finalize_summary"
    assert route_research({**state, "research_loop_count": 2}, config) == "web_research"


async def test_supervisor_rounds_and_researchers_stay_within_their_caps(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    caps = {"max_concurrent_researchers": 2, "max_supervisor_rounds": 3}
    config: Any = {"configurable": {"model": rig.models[0], "ollama_base_url": rig.url, **caps}}
    flood: Any = {"topic": "Tides", "brief": "b", "dispatch": [f"angle {i}" for i in range(30)]}
    sends = route_supervisor(flood, config)
    assert isinstance(sends, list) and [s.arg["topic"] for s in sends] == ["angle 0", "angle 1"]
    for tampered in (-5, "1"):  # a supervisor round the graph never wrote: no round more
        update = await supervisor({**flood, "supervisor_round": tampered, "queued": ["x"]}, config)
        assert update["dispatch"] == [] and "supervisor_round" not in update
    asked = await clarify_with_user({"topic": "Tides", "clarifications": -3}, config)
    assert asked["pending_question"] == ""
    assert rig.chat_log() == []  # none of it asked the model


async def test_a_served_run_asking_for_more_supersteps_than_any_run_needs_is_refused(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ponder.graphs.studio import graph

    monkeypatch.setenv("OLLAMA_HOST", rig.url)
    monkeypatch.setenv("PONDER_MODEL", "scripted")
    with pytest.raises(CallerRefusedError, match="recursion_limit=5000 is more than a run"):
        await graph.ainvoke(TOPIC, {"recursion_limit": 5000})
    assert rig.chat_log() == []
    served: Any = {"configurable": {SERVED_KEY: True}, "recursion_limit": MOST_SUPERSTEPS}
    assert run_configuration(served)  # what the served graph itself sets is allowed
    assert run_configuration({"recursion_limit": 5000})  # the operator's own runs: any


async def test_a_second_topic_on_a_thread_gets_rounds_of_its_own(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    """Studio's input form, or a served client's second run on its thread: the new question
    is researched from round 1, not given what the first one left of max_loops."""
    scripted.overrides["Reflection"] = never_sufficient()
    graph = graph_builder().compile(checkpointer=InMemorySaver())
    settings = over_corpus(rig, corpus, mode="loop", max_loops=2)
    config: Any = {"configurable": {"thread_id": "t-second", **settings}}
    first = rounds_in(await events_of(graph, TOPIC, config))
    second = rounds_in(await events_of(graph, {"topic": "Who reads tide tables?"}, config))
    assert [r["round"] for r in first] == [r["round"] for r in second] == [1, 2]
    assert second[0]["queries"][0] == "Who reads tide tables?"
    state = (await graph.aget_state(config)).values
    assert state["report"].startswith("# ") and "tide tables" in state["report"].splitlines()[0]
