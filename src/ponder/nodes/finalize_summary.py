"""finalize_summary: the loop's report, written from the running summary by the report
stage (``services/report/stage.py``), and turned into the run's state and events."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from ponder.core.state import LoopState
from ponder.nodes.context import NodeContext, node
from ponder.nodes.route import can_hand_off
from ponder.services.report.stage import Material, Written, write_report
from ponder.services.research.aspects import aspects_for


@node("finalize_summary")
async def finalize_summary(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    reflection: dict[str, Any] = dict(state.get("reflection") or {})
    if reflection.get("scope") == "broad" and can_hand_off(state, ctx.config):
        ctx.count("broad_not_handed_off")
    material = Material(
        topic=state["topic"],
        aspects=aspects_for(state["topic"], state.get("aspects")),
        sources=state.get("sources", []),
        summary=state.get("running_summary", ""),
        problems=run_warnings(state),
    )
    written = await write_report(
        ctx.llm("report"), material, warn=ctx.warn, embedder=ctx.embedder()
    )
    return report_update(ctx, written)


def run_warnings(state: Any) -> list[str]:
    """What went wrong in the run so far: a report of nothing found says it."""
    return list((state.get("stats") or {}).get("warnings", []))


def report_update(ctx: NodeContext, written: Written) -> dict[str, Any]:
    """The state update for a written report, with what writing it did counted and the
    ``report`` event sent; nothing to count when no source was found."""
    if written.composed is None:
        return {"report": written.markdown}
    for key, amount in written.counts.items():
        ctx.count(key, amount)
    ctx.emit("report", cited=len(written.cited), extractive=written.extractive)
    update: dict[str, Any] = {
        "report": written.markdown,
        "cited_sources": written.cited,
        "citations": written.citations,
    }
    if written.extractive or ctx.usage.discarded:
        # Chat clients saw a draft that is not the report: the report follows as a message.
        update["messages"] = [AIMessage(written.markdown)]
    return update
