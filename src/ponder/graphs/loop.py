"""The research loop: generate_query → web_research → summarize_sources → reflect → route."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from ponder.core.state import LoopState, ResearcherInput, ResearchInput, ResearchOutput
from ponder.nodes.answer_in_chat import answer_in_chat
from ponder.nodes.finalize_summary import finalize_summary
from ponder.nodes.generate_query import generate_query
from ponder.nodes.reflect import reflect
from ponder.nodes.route import hand_off, route_research, route_research_no_handoff, route_start
from ponder.nodes.summarize_sources import summarize_sources
from ponder.nodes.take_question import take_question
from ponder.nodes.web_research import web_research
from ponder.settings.configuration import Configuration


def add_round_nodes(builder: StateGraph[Any, Any, Any, Any]) -> None:
    builder.add_node("generate_query", generate_query)
    builder.add_node("web_research", web_research)
    builder.add_node("summarize_sources", summarize_sources)
    builder.add_node("reflect", reflect)
    builder.add_edge("generate_query", "web_research")
    builder.add_edge("web_research", "summarize_sources")
    builder.add_edge("summarize_sources", "reflect")


def loop_builder(*, handoff: Any = None) -> StateGraph[Any, Any, Any, Any]:
    """The loop; with ``handoff`` (a graph or node) broad topics go to it as ``deep_research``.

    Without it, the loop is a researcher inside the deep pipeline: it never hands off, takes
    the brief and the shared sources as input, and ends with its running summary (the
    compressed research) instead of writing a report of its own.
    """
    if handoff is None:
        builder = StateGraph(
            LoopState,
            context_schema=Configuration,
            input_schema=ResearcherInput,
            output_schema=ResearchOutput,
        )
        add_round_nodes(builder)
        builder.add_edge(START, "generate_query")
        builder.add_conditional_edges(
            "reflect",
            route_research_no_handoff,
            {"web_research": "web_research", "finalize_summary": END},
        )
        return builder
    builder = StateGraph(
        LoopState,
        context_schema=Configuration,
        input_schema=ResearchInput,  # type: ignore[arg-type]
        output_schema=ResearchOutput,
    )
    add_round_nodes(builder)
    builder.add_node("take_question", take_question)
    builder.add_node("finalize_summary", finalize_summary)
    builder.add_node("hand_off", hand_off)
    builder.add_node("deep_research", handoff)
    builder.add_node("answer_in_chat", answer_in_chat)
    builder.add_edge(START, "take_question")
    # Both ways into the deep pipeline pass through hand_off, which carries the turn's spend.
    builder.add_conditional_edges(
        "take_question",
        route_start,
        {"generate_query": "generate_query", "deep_research": "hand_off"},
    )
    builder.add_conditional_edges(
        "reflect",
        route_research,
        {
            "web_research": "web_research",
            "finalize_summary": "finalize_summary",
            "deep_research": "hand_off",
        },
    )
    builder.add_edge("hand_off", "deep_research")
    builder.add_edge("finalize_summary", "answer_in_chat")
    builder.add_edge("deep_research", "answer_in_chat")
    builder.add_edge("answer_in_chat", END)
    return builder
