"""The graph Studio serves and the API runs: the loop, handing broad topics to deep research."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from ponder.graphs.loop import loop_builder


def graph_builder() -> StateGraph[Any, Any, Any, Any]:
    return loop_builder()
