"""finalize_summary: the loop's report, written from the running summary by the report
stage (``services/report/stage.py``), and turned into the run's state and events."""

from __future__ import annotations

from typing import Any

from ponder.core.state import LoopState
from ponder.nodes.context import NodeContext, node
from ponder.nodes.reporting import report_update, run_warnings
from ponder.nodes.route import (
    budget_ended,
    can_hand_off,
    no_room_for_deep,
    rounds_done,
    spent_by,
)
from ponder.services.report.stage import Material, write_report
from ponder.services.research.aspects import aspects_for
from ponder.services.research.budget import noted, report_tokens, said


@node("finalize_summary")
async def finalize_summary(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    reflection: dict[str, Any] = dict(state.get("reflection") or {})
    if reflection.get("scope") == "broad" and can_hand_off(state, ctx.config):
        ctx.count("broad_not_handed_off")
    ended = _ended_by_budget(state, reflection, ctx)
    spent = spent_by(state, ctx.config)
    cap = report_tokens(spent, ctx.config)
    if cap:  # the report writes no more than the token budget has left
        ctx.config = ctx.config.model_copy(update={"num_predict": cap})
    material = Material(
        topic=state["topic"],
        aspects=aspects_for(state["topic"], state.get("aspects")),
        sources=state.get("sources", []),
        summary=state.get("running_summary", ""),
        problems=run_warnings(state),
        drafted=cap != 0,
    )
    written = await write_report(
        ctx.llm("report"), material, warn=ctx.warn, embedder=ctx.embedder()
    )
    if ended:  # the report says so, under its title, as it says it is extractive
        note = said(ended, ctx.config, rounds_done(state, ctx.config))
        written.markdown = noted(written.markdown, note)
        ctx.warn(note)
    update = report_update(ctx, written)
    if ended:
        update["stats"] = {**(update.get("stats") or {}), "budget_ended": ended}
    return update


def _ended_by_budget(state: LoopState, reflection: dict[str, Any], ctx: NodeContext) -> str | None:
    """The budget that ended the research before its rounds or a sufficient verdict did,
    or kept a broad question from the deep pipeline; the report says so."""
    settings = ctx.config
    if reflection.get("scope") == "broad" and can_hand_off(state, settings):
        return no_room_for_deep(state, settings)
    if reflection.get("is_sufficient") or rounds_done(state, settings) >= settings.max_loops:
        return None
    return budget_ended(state, settings)
