"""final_report: the deep pipeline's report, written from the researchers' notes by the
report stage (``services/report/stage.py``): in one call when every note fits the context
window, else section by section, one sub-topic at a time, so no evidence is cut away."""

from __future__ import annotations

from typing import Any

from ponder.core.deep_state import DeepState, Note
from ponder.nodes.context import NodeContext, node
from ponder.nodes.reporting import report_update, run_warnings
from ponder.services.report.stage import Material, write_report
from ponder.services.research.aspects import aspects_for


def sections(state: DeepState) -> list[Note]:
    """The notes with something in them, after the loop's own (an overview) if it had any."""
    notes = [n for n in state.get("notes", []) if n["summary"].strip()]
    if state.get("running_summary", "").strip():
        notes.insert(0, Note(topic="Overview", summary=state["running_summary"], error=""))
    return notes


@node("final_report")
async def final_report(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    material = Material(
        topic=state["topic"],
        aspects=aspects_for(state["topic"], state.get("aspects")),
        sources=state.get("sources", []),
        notes=sections(state),
        brief=state.get("brief", ""),
        problems=run_warnings(state),
    )
    written = await write_report(
        ctx.llm("report"), material, warn=ctx.warn, embedder=ctx.embedder()
    )
    return {**report_update(ctx, written), "running_summary": written.notes}
