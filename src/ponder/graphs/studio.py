"""Compiled graphs for LangGraph Studio, LangGraph Server and your own LangGraph apps.

``langgraph.json`` points at ``graph`` here. They are compiled without a checkpointer:
the server (``langgraph dev``, LangGraph Platform) brings its own, and so does a parent
graph that embeds them as subgraphs. The input form asks only for the topic; every
:class:`~ponder.settings.configuration.Configuration` field is the graph's context schema.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from ponder.graphs.deep import deep_builder
from ponder.graphs.main import graph_builder
from ponder.settings.ceilings import MOST_SUPERSTEPS
from ponder.settings.run_settings import SERVED_KEY

# Studio users can raise the caps in the UI, so allow the supersteps of the largest ones.
RECURSION_LIMIT = MOST_SUPERSTEPS

SERVED = RunnableConfig(recursion_limit=RECURSION_LIMIT, configurable={SERVED_KEY: True})

graph: Any = graph_builder().compile(name="ponder").with_config(SERVED)
"""The full agent: the research loop, handing broad topics to the deep pipeline."""

deep: Any = deep_builder().compile(name="ponder-deep").with_config(SERVED)
"""The deep pipeline alone: clarify → brief → supervisor ⇄ researchers → final report."""
