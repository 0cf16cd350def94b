"""finalize_summary: write the report from the running summary, citations checked in code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage

from ponder import prompts
from ponder.core.sources import Source
from ponder.core.state import LoopState
from ponder.nodes.context import NodeContext, node
from ponder.nodes.route import can_hand_off
from ponder.services.model import budget
from ponder.services.model.llm import Draft
from ponder.services.model.prompt import Prompt
from ponder.services.report.composer import compose_report
from ponder.services.report.excerpts import excerpt_blocks
from ponder.services.report.extractive import completion
from ponder.services.report.grounding import Grounding
from ponder.services.report.support import Evidence
from ponder.services.research.aspects import Aspect, aspects_of, covered_in_report
from ponder.services.research.vetting import is_reading_note


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
    aspects = aspects_of(topic)
    prompt = report_prompt(ctx, topic, summary, sources, aspects)
    evidence = Evidence(sources)
    draft = await write_prose(ctx, prompt, evidence, topic) if summary.strip() else Draft("")
    body = repaired(ctx, draft, summary, topic, sources, aspects)
    return checked_report(ctx, topic, body, summary, sources, evidence, aspects)


def report_prompt(
    ctx: NodeContext, topic: str, summary: str, sources: list[Source], aspects: list[Aspect]
) -> Prompt:
    """The summary, and excerpts of the sources in the room it leaves (see ``excerpts``);
    with excerpts, notes that only record what was read are left out: the excerpts show it."""
    model = ctx.llm("report").model
    blocks = excerpt_blocks(topic, summary, sources, ctx.config.summary_tokens, model)
    if blocks:
        summary = "\n".join(x for x in summary.splitlines() if not is_reading_note(x))
    user = prompts.fill(prompts.REPORT_USER, topic=topic, summary=summary or "(none)")
    if aspects:
        listed = "; ".join(a.query for a in aspects)
        user += "\n\n" + prompts.fill(prompts.REPORT_USER_PARTS, parts=listed)
    parts = [budget.Part(user)]
    if blocks:  # the least relevant excerpts drop first when the window is short
        parts.append(budget.Part(prompts.REPORT_USER_SOURCES, 1))
        parts += [budget.Part(block, rank + 1) for rank, block in enumerate(blocks)]
    return Prompt(prompts.REPORT_SYSTEM, parts)


async def write_prose(
    ctx: NodeContext, prompt: Prompt, evidence: Evidence, topic: str = ""
) -> Draft:
    """The report text as the model writes it (streamed live): whole, cut before where it
    degenerated, or empty when it was unusable."""
    grounding = Grounding(evidence, topic)
    return await ctx.llm("report").draft(
        prompt,
        accept=grounding.accept,
        watch=grounding.watch,
        salvage=grounding.worth_keeping,
        live=True,
    )


def repaired(
    ctx: NodeContext,
    draft: Draft,
    notes: str,
    topic: str,
    sources: list[Source] | None = None,
    aspects: Sequence[Aspect] = (),
) -> str:
    """The draft's text; when it was cut, completed from the notes (and quotes of
    ``sources`` it cites nothing of) for what it misses."""
    if not draft.text and draft.problem:
        ctx.usage.fallbacks += 1
        ctx.warn(f"Model text unusable ({draft.problem}); used a fallback.")
    if not draft.cut:
        return draft.text
    ctx.count("texts_cut")
    ctx.count("chars_cut", draft.cut_chars)
    ctx.warn(
        f"The model's text degenerated ({draft.problem}); kept the "
        f"{len(draft.text.split())} words it wrote before that and completed it from the "
        "findings."
    )
    return completion(draft.text, notes, topic, draft.problem or "", sources or [], aspects=aspects)


def checked_report(
    ctx: NodeContext,
    topic: str,
    body: str,
    notes: str,
    sources: list[Source],
    evidence: Evidence | None = None,
    aspects: Sequence[Aspect] = (),
) -> dict[str, Any]:
    """The report update after the citation check, with what the check did recorded."""
    composed = compose_report(
        topic,
        body,
        notes,
        sources,
        aspects=aspects,
        strict=ctx.config.strict_citations,
        evidence=evidence,
    )
    checked = composed.checked
    for key, amount in (
        ("citations_removed", composed.citations_removed),
        ("citations_checked", checked.checked),
        ("citations_repointed", checked.repointed),
        ("citations_added", checked.added),
        ("sentences_unsupported", checked.unsupported),
    ):
        if amount:
            ctx.count(key, amount)
    if aspects:
        ctx.count("aspects", len(aspects))
        ctx.count("aspects_covered", covered_in_report(aspects, composed.markdown))
    if composed.extractive:
        ctx.count("extractive_report")
        ctx.warn(
            "The model's report text was unusable; wrote an extractive report (cited findings "
            "and quotes from the sources) instead."
        )
    ctx.emit("report", cited=len(composed.cited), extractive=composed.extractive)
    update: dict[str, Any] = {
        "report": composed.markdown,
        "cited_sources": composed.cited,
        "citations": composed.citations,
    }
    if composed.extractive or ctx.usage.discarded:
        # Chat clients saw a draft that is not the report: the report follows as a message.
        update["messages"] = [AIMessage(composed.markdown)]
    return update
