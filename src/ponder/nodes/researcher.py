"""researcher: the research loop itself, run on one sub-topic with the hand-off disabled."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphInterrupt

from ponder.core.deep_state import ResearcherResult, ResearcherTask
from ponder.core.errors import ModelNotFoundError, OllamaUnavailableError, PonderError, SearchError
from ponder.nodes.context import RESEARCHER_KEY, NodeContext, run_node


def make_researcher(loop_graph: Any) -> Any:
    """The researcher node around a compiled loop graph.

    The node references ``loop_graph`` directly so LangGraph (and Studio) recognise the
    research loop as this node's subgraph.
    """

    async def researcher(task: ResearcherTask, config: RunnableConfig) -> dict[str, Any]:
        async def body(state: ResearcherTask, ctx: NodeContext) -> dict[str, Any]:
            return await research_subtopic(loop_graph, state, ctx)

        return await run_node("researcher", body, task, config)

    return researcher


async def research_subtopic(
    loop_graph: Any, task: ResearcherTask, ctx: NodeContext
) -> dict[str, Any]:
    ctx.emit("researcher", topic=task["topic"], status="started")
    # The checkpointer, namespace, stream writer and the run's settings (its configurable
    # and runtime context) are inherited from LangGraph's context; on a served graph the
    # researcher's nodes check the caller's settings again, as every node does.
    # Its topic travels in the metadata, which LangGraph hands on to the loop's nodes: each
    # of their progress events names its researcher (parallel ones are told apart live).
    config = RunnableConfig(
        recursion_limit=ctx.config.recursion_limit,
        metadata={RESEARCHER_KEY: task["topic"]},
    )
    try:
        output = await loop_graph.ainvoke(dict(task), config)
    except (GraphInterrupt, OllamaUnavailableError, ModelNotFoundError, SearchError):
        raise  # no other researcher can do better: stop with the clear error
    except PonderError as exc:  # one failing researcher must not sink the run; a bug does
        ctx.emit("researcher", topic=task["topic"], status="failed")
        return {"researcher_results": [_failed(task, f"{type(exc).__name__}: {exc}")]}
    stats = output.get("stats") or {}
    error = ""
    if not stats.get("llm_calls") and stats.get("fallbacks"):
        error = "every model call failed; only extracted passages were kept"
    ctx.emit("researcher", topic=task["topic"], status="done")
    result = ResearcherResult(
        topic=task["topic"],
        summary=output.get("running_summary") or "",
        sources=output.get("sources") or [],
        error=error,
    )
    return {"researcher_results": [result], "stats": stats}


def _failed(task: ResearcherTask, error: str) -> ResearcherResult:
    return ResearcherResult(topic=task["topic"], summary="", sources=[], error=error)
