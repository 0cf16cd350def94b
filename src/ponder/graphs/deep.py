"""The deep pipeline: clarify → brief → supervisor ⇄ parallel researchers → final report."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from ponder.core.deep_state import DeepInput, DeepOutput, DeepState
from ponder.graphs.loop import loop_builder
from ponder.nodes.ask_user import ask_user
from ponder.nodes.clarify_with_user import clarify_with_user, route_clarify
from ponder.nodes.final_report import final_report
from ponder.nodes.researcher import make_researcher
from ponder.nodes.supervisor import route_supervisor, supervisor
from ponder.nodes.write_research_brief import write_research_brief
from ponder.settings.configuration import Configuration


def deep_builder() -> StateGraph[Any, Any, Any, Any]:
    builder = StateGraph(
        DeepState,
        context_schema=Configuration,
        input_schema=DeepInput,
        output_schema=DeepOutput,
    )
    builder.add_node("clarify_with_user", clarify_with_user)
    builder.add_node("ask_user", ask_user)
    builder.add_node("write_research_brief", write_research_brief)
    builder.add_node("supervisor", supervisor)
    builder.add_node("researcher", make_researcher(loop_builder(handoff=None).compile()))
    builder.add_node("final_report", final_report)
    builder.add_edge(START, "clarify_with_user")
    builder.add_conditional_edges("clarify_with_user", route_clarify)
    builder.add_edge("ask_user", "clarify_with_user")
    builder.add_edge("write_research_brief", "supervisor")
    builder.add_conditional_edges("supervisor", route_supervisor, ["researcher", "final_report"])
    builder.add_edge("researcher", "supervisor")
    builder.add_edge("final_report", END)
    return builder
