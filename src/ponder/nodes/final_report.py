"""final_report: the report from the researchers' notes, citations checked in code.

When every note fits the context window the report is written in one call; otherwise it is
written section by section, one sub-topic at a time, so no evidence is truncated away.
"""

from __future__ import annotations

from typing import Any

from ponder import prompts
from ponder.core.deep_state import DeepState, Note
from ponder.nodes.context import NodeContext, node
from ponder.nodes.finalize_summary import (
    checked_report,
    nothing_found_report,
    repaired,
    write_prose,
)
from ponder.services.model import budget
from ponder.services.model.prompt import Prompt
from ponder.services.report.extractive import cited_findings
from ponder.services.report.support import Evidence
from ponder.services.research.aspects import aspects_of


def sections(state: DeepState) -> list[Note]:
    notes = [n for n in state.get("notes", []) if n["summary"].strip()]
    if state.get("running_summary", "").strip():
        notes.insert(0, Note(topic="Overview", summary=state["running_summary"], error=""))
    return notes


def notes_markdown(notes: list[Note]) -> str:
    return "\n\n".join(f"## {n['topic']}\n{n['summary']}" for n in notes)


@node("final_report")
async def final_report(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    notes = sections(state)
    sources = state.get("sources", [])
    if not sources:
        warnings = list((state.get("stats") or {}).get("warnings", []))
        return {"report": nothing_found_report(topic, warnings), "running_summary": ""}
    llm = ctx.llm("report")
    everything = notes_markdown(notes)
    brief = state.get("brief") or topic
    whole = prompts.fill(prompts.FINAL_REPORT_USER, topic=topic, brief=brief, notes=everything)
    fits = budget.estimate_tokens(prompts.FINAL_REPORT_SYSTEM + whole, llm.model) <= (
        llm.prompt_budget()
    )
    evidence = Evidence(sources)
    aspects = aspects_of(topic)
    if not notes:
        body = ""  # every researcher came back empty-handed: quote the sources
    elif fits:
        prompt = Prompt.simple(prompts.FINAL_REPORT_SYSTEM, whole)
        draft = await write_prose(ctx, prompt, evidence, topic)
        body = repaired(ctx, draft, everything, topic, sources, aspects)
    else:
        ctx.count("report_sections", len(notes))
        body = await _by_section(ctx, topic, notes, evidence)
    update = checked_report(ctx, topic, body, everything, sources, evidence, aspects)
    return {**update, "running_summary": everything}


async def _by_section(ctx: NodeContext, topic: str, notes: list[Note], evidence: Evidence) -> str:
    """One call per sub-topic; a section whose text is unusable shows its cited notes."""
    parts = [f"# {topic}"]
    for note in notes:
        system = prompts.SECTION_SYSTEM.format(heading=note["topic"])
        user = prompts.fill(prompts.SECTION_USER, topic=topic, notes=note["summary"])
        draft = await write_prose(
            ctx, Prompt.simple(system, user), evidence, f"{topic} {note['topic']}"
        )
        section = repaired(ctx, draft, note["summary"], f"{topic} {note['topic']}")
        if not section:
            ctx.count("sections_from_notes")
            findings = cited_findings(note["summary"], f"{topic} {note['topic']}")
            section = "\n".join([f"## {note['topic']}", *findings])
        parts.append(section)
    return "\n\n".join(parts)
