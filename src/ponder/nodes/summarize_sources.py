"""summarize_sources: rewrite the running summary from the old one and this round's sources.

The model returns findings, each with the numbers of its sources; the schema only admits
numbers that were really retrieved, so even a tiny model cannot invent a citation. Claims
that say nothing (placeholders, duplicates, the question restated, copied instructions) are
dropped. The model is shown this round's most relevant passages within ``evidence_tokens``,
and the summary is held to ``summary_tokens``, so prompts do not grow with the rounds.
"""

from __future__ import annotations

import re
from typing import Any

from ponder import prompts
from ponder.core.sources import Source
from ponder.core.state import Finding, LoopState
from ponder.nodes.context import NodeContext, node
from ponder.prompts.schemas import Claim, SummaryUpdate, summary_schema
from ponder.services.model import budget
from ponder.services.model.prompt import Prompt
from ponder.services.research.findings import PIECE_SEPARATOR, finding_pieces, piece_digest
from ponder.services.research.vetting import reading_note, usable_claims
from ponder.services.text.citations import cited_numbers, remove_invalid
from ponder.services.text.passages import best_passages, bm25_scores

BLOCK_CHARS = 900  # source text per block shown to the model, chosen by relevance


def render(claims: list[Claim]) -> str:
    lines = []
    for claim in claims:
        statement = re.sub(r"\s*\[\d+\]", "", claim.statement).strip()
        if statement:
            cites = "".join(f"[{n}]" for n in dict.fromkeys(claim.sources))
            lines.append(f"- {statement} {cites}")
    return "\n".join(lines)


def extractive_summary(previous: str, findings: list[Finding], topic: str = "") -> str:
    """Fallback: keep the old summary and note each new source by title, with its citation.

    Page text is never copied here: the summary is shown to later prompts outside any
    <source> block, so untrusted text must not leak into it unsummarised.
    """
    lines = [line for line in previous.splitlines() if line.strip()]
    for finding in dict((f["number"], f) for f in findings).values():
        note = reading_note(finding["query"], finding["title"], finding["number"], topic)
        lines.append(note)
    return "\n".join(lines)


def source_texts(known: list[Source], shown: list[Finding]) -> dict[int, str]:
    """Everything read from each source so far, by number (to check claims against)."""
    texts = {s["number"]: f"{s['title']}\n" + "\n".join(s["passages"]) for s in known}
    for finding in shown:
        texts[finding["number"]] = texts.get(finding["number"], "") + "\n" + finding["text"]
    return texts


def shown_evidence(
    findings: list[Finding], topic: str, max_tokens: int, model: str
) -> tuple[list[Finding], list[str]]:
    """This round's sources for the model: one block per source, most relevant first.

    Passages of a source found by several queries are joined; each block keeps the passages
    most relevant to the topic and its query; blocks are added by relevance until
    ``max_tokens`` is spent (the first always, so a round never shows nothing). Returns the
    blocks and the digests of the passages shown whole (not to be shown again).
    """
    merged: dict[int, Finding] = {}
    for finding in findings:
        known = merged.get(finding["number"])
        if known is None:
            merged[finding["number"]] = Finding(**finding)
        elif finding["text"] not in known["text"]:
            known["text"] += PIECE_SEPARATOR + finding["text"]
    blocks = list(merged.values())
    scores = bm25_scores([f"{b['title']}\n{b['text']}" for b in blocks], topic)
    ranked = [b for _, b in sorted(zip(scores, blocks, strict=True), key=lambda p: -p[0])]
    shown: list[Finding] = []
    digests: list[str] = []
    used = 0
    for block in ranked:
        query = f"{topic} {block['query']}"
        text = PIECE_SEPARATOR.join(best_passages(block["text"], query, BLOCK_CHARS))
        cost = budget.estimate_tokens(text, model)
        if shown and used + cost > max_tokens:
            continue
        shown.append(Finding(**{**block, "text": text}))
        digests += [piece_digest(p) for p in finding_pieces(block["text"]) if p in text]
        used += cost
    return shown, digests


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
    topic = state["topic"]
    known = [s["number"] for s in state.get("sources", [])]
    model = ctx.config.model
    head = prompts.fill(
        prompts.SUMMARY_USER_HEAD,
        topic=topic,
        summary=within_budget(previous, ctx.config.summary_tokens, model) or "(empty)",
    )
    shown, digests = shown_evidence(findings, topic, ctx.config.evidence_tokens, model)
    # Blocks are in order of relevance; the least relevant drop first when space is short.
    blocks = [
        budget.Part(prompts.source_block(f["number"], f["title"], f["url"], f["text"]), rank + 1)
        for rank, f in enumerate(shown)
    ]
    prompt = Prompt(
        prompts.SUMMARY_SYSTEM,
        [budget.Part(head), budget.Part(prompts.SUMMARY_USER_SOURCES), *blocks],
    )
    numbers = sorted({f["number"] for f in shown} | set(cited_numbers(previous)))
    schema = summary_schema(numbers)
    fallback = SummaryUpdate(findings=[])
    update = await ctx.llm().structured(schema, prompt, fallback)
    texts = source_texts(state.get("sources", []), shown)
    keep = usable_claims([(c.statement, c.sources) for c in update.findings], topic, texts)
    if len(keep) < len(update.findings):
        ctx.count("claims_dropped", len(update.findings) - len(keep))
    claims = [update.findings[i] for i in keep]
    summary = render(claims) if claims else extractive_summary(previous, shown, topic)
    summary, removed = remove_invalid(summary, known)
    if removed:
        ctx.count("citations_removed", removed)
    summary = within_budget(summary, ctx.config.summary_tokens, model)
    ctx.emit("summary", chars=len(summary))
    # Passages count as read once the model has answered on them (even if nothing it said
    # was usable: showing a weak model the same text again rarely helps); after a failed
    # call they may be shown again in a later round.
    answered = update is not fallback
    return {"running_summary": summary, "summarized": digests if answered else []}
