"""finalize_summary: write the report from the running summary, citations checked in code."""

from __future__ import annotations

from typing import Any

from ponder import prompts
from ponder.nodes.context import NodeContext, node
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
    if reflection.get("scope") == "broad" and ctx.config.mode == "auto" and not state.get("brief"):
        ctx.count("broad_not_handed_off")
    if not summary.strip() or not sources:
        warnings = list((state.get("stats") or {}).get("warnings", []))
        return {"report": nothing_found_report(topic, warnings)}
    prompt = Prompt.simple(
        prompts.REPORT_SYSTEM, prompts.fill(prompts.REPORT_USER, topic=topic, summary=summary)
    )
    body = await ctx.llm("report").text(prompt, fallback=summary)
    return checked_report(ctx, topic, body, summary, sources)


def checked_report(
    ctx: NodeContext, topic: str, body: str, cited_notes: str, sources: list[Source]
) -> dict[str, Any]:
    """The report update after the citation check, with what the check did recorded."""
    composed = compose_report(topic, body, cited_notes, sources)
    if composed.citations_removed:
        ctx.count("citations_removed", composed.citations_removed)
    if composed.used_fallback_body:
        ctx.warn("The report text cited no retrieved source; the cited notes were used instead.")
    ctx.emit("report", cited=len(composed.cited))
    return {"report": composed.markdown, "cited_sources": composed.cited}
