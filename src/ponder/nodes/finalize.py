"""finalize_summary: write the report from the running summary, citations checked in code."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from ponder import prompts
from ponder.nodes.context import NodeContext, node
from ponder.nodes.route import can_hand_off
from ponder.services.citations import citation_check
from ponder.services.composer import compose_report
from ponder.services.llm import Prompt
from ponder.services.sources import Source
from ponder.state import LoopState


def nothing_found_report(topic: str, warnings: list[str]) -> str:
    lines = [f"# {topic}", "", "No sources were found, so there is nothing to report.", ""]
    if warnings:
        lines += ["What went wrong:", "", *[f"- {w}" for w in dict.fromkeys(warnings)], ""]
    lines.append("Try other search settings (--search, --docs) or a rephrased question.")
    return "\n".join(lines) + "\n"


@node("finalize_summary")
async def finalize_summary(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    summary = state.get("running_summary", "")
    sources = state.get("sources", [])
    reflection: dict[str, Any] = dict(state.get("reflection") or {})
    if reflection.get("scope") == "broad" and can_hand_off(state, ctx.config):
        ctx.count("broad_not_handed_off")
    if not sources:
        warnings = list((state.get("stats") or {}).get("warnings", []))
        return {"report": nothing_found_report(topic, warnings)}
    prompt = Prompt.simple(
        prompts.REPORT_SYSTEM, prompts.fill(prompts.REPORT_USER, topic=topic, summary=summary)
    )
    body = await write_prose(ctx, prompt, sources) if summary.strip() else ""
    return checked_report(ctx, topic, body, summary, sources)


# A report that has not cited a source in this many words is not going to be a cited one.
CITE_WITHIN_WORDS = 200


async def write_prose(ctx: NodeContext, prompt: Prompt, sources: list[Source]) -> str:
    """The report text as the model writes it (streamed live), or "" when it was unusable."""
    valid = [s["number"] for s in sources]
    return await ctx.llm("report").text(
        prompt,
        fallback="",
        accept=citation_check(valid),
        watch=citation_check(valid, within_words=CITE_WITHIN_WORDS),
        live=True,
    )


def checked_report(
    ctx: NodeContext, topic: str, body: str, notes: str, sources: list[Source]
) -> dict[str, Any]:
    """The report update after the citation check, with what the check did recorded."""
    composed = compose_report(topic, body, notes, sources)
    if composed.citations_removed:
        ctx.count("citations_removed", composed.citations_removed)
    if composed.extractive:
        ctx.count("extractive_report")
        ctx.warn(
            "The model's report text was unusable; wrote an extractive report (cited findings "
            "and quotes from the sources) instead."
        )
    ctx.emit("report", cited=len(composed.cited), extractive=composed.extractive)
    update: dict[str, Any] = {"report": composed.markdown, "cited_sources": composed.cited}
    if composed.extractive or ctx.usage.discarded:
        # Chat clients saw a draft that is not the report: the report follows as a message.
        update["messages"] = [AIMessage(composed.markdown)]
    return update
