"""finalize_summary: the loop's report, written from the running summary by the report
stage (``services/report/stage.py``), and turned into the run's state and events."""

from __future__ import annotations

from typing import Any

from ponder.core.state import LoopState
from ponder.nodes.context import NodeContext, node
from ponder.nodes.reporting import report_update, run_warnings
from ponder.nodes.route import can_hand_off
from ponder.services.report.stage import Material, write_report
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
