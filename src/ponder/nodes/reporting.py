"""A written report made the run's state and events: what the loop's report
(``finalize_summary``) and the deep pipeline's (``final_report``) both do with it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from ponder.nodes.context import NodeContext
from ponder.services.report.stage import Written


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
