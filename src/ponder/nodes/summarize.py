"""summarize_sources: rewrite the running summary from the old one and this round's sources.

The model returns findings, each with the numbers of its sources; the schema only admits
numbers that were really retrieved, so even a tiny model cannot invent a citation. The
summary is held to a token budget so prompts do not grow with the number of rounds.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ponder import prompts
from ponder.nodes.context import NodeContext, node
from ponder.services import budget
from ponder.services.citations import cited_numbers, remove_invalid
from ponder.services.llm import Prompt
from ponder.state import Finding, LoopState

MAX_FINDINGS = 10


class Claim(BaseModel):
    statement: str = Field(max_length=400)
    sources: list[int]


class SummaryUpdate(BaseModel):
    findings: list[Claim]


def summary_schema(numbers: list[int]) -> type[SummaryUpdate]:
    """SummaryUpdate whose claims may only cite ``numbers``."""
    allowed = Literal[tuple(sorted(set(numbers)))]  # type: ignore[valid-type]
    claim = create_model(
        "Claim",
        __base__=Claim,
        sources=(list[allowed], Field(min_length=1, max_length=3)),  # type: ignore[valid-type]
    )
    return create_model(
        "SummaryUpdate",
        __base__=SummaryUpdate,
        findings=(list[claim], Field(min_length=1, max_length=MAX_FINDINGS)),  # type: ignore[valid-type]
    )


def render(update: SummaryUpdate) -> str:
    lines = []
    for claim in update.findings:
        statement = re.sub(r"\s*\[\d+\]", "", claim.statement).strip()
        if statement:
            cites = "".join(f"[{n}]" for n in dict.fromkeys(claim.sources))
            lines.append(f"- {statement} {cites}")
    return "\n".join(lines)


def extractive_summary(previous: str, findings: list[Finding]) -> str:
    """Fallback: keep the old summary and note each new source by title, with its citation.

    Page text is never copied here: the summary is shown to later prompts outside any
    <source> block, so untrusted text must not leak into it unsummarised.
    """
    lines = [line for line in previous.splitlines() if line.strip()]
    for finding in dict((f["number"], f) for f in findings).values():
        title = " ".join((finding["title"] or "a source").split())[:120]
        lines.append(
            f"- Material on {finding['query'][:80]!r} was read in {title!r} [{finding['number']}]"
        )
    return "\n".join(lines)


def within_budget(summary: str, max_tokens: int, model: str) -> str:
    """Keep the summary's first lines that fit its budget (later lines are the least central)."""
    kept: list[str] = []
    used = 0
    for line in summary.splitlines():
        cost = budget.estimate_tokens(line, model)
        if used + cost > max_tokens:
            break
        kept.append(line)
        used += cost
    return "\n".join(kept)


@node("summarize_sources")
async def summarize_sources(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    findings = state.get("round_findings", [])
    previous = state.get("running_summary", "")
    if not findings:
        return {}
    known = [s["number"] for s in state.get("sources", [])]
    model = ctx.config.model
    head = prompts.fill(
        prompts.SUMMARY_USER_HEAD,
        topic=state["topic"],
        summary=within_budget(previous, ctx.config.summary_tokens, model) or "(empty)",
    )
    # Findings arrive ranked by the search backend; later ones drop first when space is short.
    blocks = [
        budget.Part(prompts.source_block(f["number"], f["title"], f["url"], f["text"]), rank + 1)
        for rank, f in enumerate(findings)
    ]
    prompt = Prompt(
        prompts.SUMMARY_SYSTEM,
        [budget.Part(head), budget.Part(prompts.SUMMARY_USER_SOURCES), *blocks],
    )
    numbers = sorted({f["number"] for f in findings} | set(cited_numbers(previous)))
    schema = summary_schema(numbers)
    fallback = SummaryUpdate(findings=[])
    update = await ctx.llm().structured(schema, prompt, fallback)
    summary = render(update) if update.findings else extractive_summary(previous, findings)
    summary, removed = remove_invalid(summary, known)
    if removed:
        ctx.count("citations_removed", removed)
    summary = within_budget(summary, ctx.config.summary_tokens, model)
    ctx.emit("summary", chars=len(summary))
    return {"running_summary": summary}
