"""What the model is asked when it writes a report: from the loop's running summary, from
the deep pipeline's notes in one call, or one section of them at a time."""

from __future__ import annotations

from collections.abc import Sequence

from ponder import prompts
from ponder.core.deep_state import Note
from ponder.core.sources import Source
from ponder.services.model import budget
from ponder.services.model.llm import LLM
from ponder.services.model.prompt import Prompt
from ponder.services.report.excerpts import excerpt_blocks
from ponder.services.research.aspects import Aspect
from ponder.services.research.vetting import is_reading_note


def summary_prompt(
    llm: LLM, topic: str, summary: str, sources: list[Source], aspects: Sequence[Aspect]
) -> Prompt:
    """The summary, the question's parts, and excerpts of the sources in the room the
    summary leaves (see ``excerpts``); with excerpts, notes that only record what was read
    are left out: the excerpts show it."""
    blocks = excerpt_blocks(topic, summary, sources, llm.config.summary_tokens, llm.model)
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


def notes_markdown(notes: Sequence[Note]) -> str:
    """The researchers' notes as one text, a heading for each sub-topic."""
    return "\n\n".join(f"## {n['topic']}\n{n['summary']}" for n in notes)


def notes_prompt(llm: LLM, topic: str, brief: str, notes: str) -> Prompt | None:
    """The whole report from all the notes at once; None when they do not fit the window
    (the report is then written a section at a time, so no evidence is cut away)."""
    user = prompts.fill(prompts.FINAL_REPORT_USER, topic=topic, brief=brief, notes=notes)
    if budget.estimate_tokens(prompts.FINAL_REPORT_SYSTEM + user, llm.model) > llm.prompt_budget():
        return None
    return Prompt.simple(prompts.FINAL_REPORT_SYSTEM, user)


def section_prompt(topic: str, note: Note) -> Prompt:
    """One section of the report, from the notes of one sub-topic."""
    system = prompts.SECTION_SYSTEM.format(heading=note["topic"])
    user = prompts.fill(prompts.SECTION_USER, topic=topic, notes=note["summary"])
    return Prompt.simple(system, user)
