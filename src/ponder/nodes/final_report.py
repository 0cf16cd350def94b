"""final_report: the deep pipeline's report, written from the researchers' notes by the
report stage (``services/report/stage.py``): in one call when every note fits the context
window, else section by section, one sub-topic at a time, so no evidence is cut away."""

from __future__ import annotations

from typing import Any

from ponder.core.deep_state import DeepState, Note
from ponder.nodes.context import NodeContext, node
from ponder.nodes.reporting import report_update, run_warnings
from ponder.nodes.route import deep_spent_by
from ponder.services.model.budget import estimate_tokens
from ponder.services.report.prompting import notes_markdown, notes_prompt
from ponder.services.report.stage import Material, write_report
from ponder.services.research.aspects import aspects_for
from ponder.services.research.budget import PROMPT_OVERHEAD, report_tokens


def sections(state: DeepState) -> list[Note]:
    """The notes with something in them, after the loop's own (an overview) if it had any."""
    notes = [n for n in state.get("notes", []) if n["summary"].strip()]
    if state.get("running_summary", "").strip():
        notes.insert(0, Note(topic="Overview", summary=state["running_summary"], error=""))
    return notes


@node("final_report")
async def final_report(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    notes = sections(state)
    cap = _held_to_budgets(state, notes, ctx)
    material = Material(
        topic=state["topic"],
        aspects=aspects_for(state["topic"], state.get("aspects")),
        sources=state.get("sources", []),
        notes=notes,
        brief=state.get("brief", ""),
        problems=run_warnings(state),
        drafted=cap != 0,
    )
    written = await write_report(
        ctx.llm("report"), material, warn=ctx.warn, embedder=ctx.embedder()
    )
    return {**report_update(ctx, written), "running_summary": written.notes}


def _held_to_budgets(state: DeepState, notes: list[Note], ctx: NodeContext) -> int | None:
    """The most each of the report's calls may write within the run's budgets (None: no
    budget; 0: none, the report is built from the notes): one call when all the notes fit
    its window, else one per note, each with its share of what is left."""
    spent = deep_spent_by(state)
    text = notes_markdown(notes)
    whole = notes_prompt(ctx.llm("report"), state["topic"], state.get("brief", ""), text)
    calls = 1 if whole is not None else max(len(notes), 1)  # as the report will be written
    reading = estimate_tokens(text, ctx.config.model) + PROMPT_OVERHEAD * calls
    cap = report_tokens(spent, ctx.config, reading, calls)
    if cap:
        ctx.config = ctx.config.model_copy(update={"num_predict": cap})
    return cap
