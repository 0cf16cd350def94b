"""The graph Studio serves and the API runs: the loop, handing broad topics to deep research."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from ponder.graphs.deep import deep_builder
from ponder.graphs.loop import loop_builder


def graph_builder() -> StateGraph[Any, Any, Any, Any]:
    """The loop with the deep pipeline as its ``deep_research`` subgraph."""
    return loop_builder(handoff=deep_builder().compile())
