"""The report stage, end to end: ``write_report`` turns what the research found into the
checked report.

    prompt → draft (streamed, guarded) → repair → complete uncited parts → check → compose

The loop's ``finalize_summary`` and the deep pipeline's ``final_report`` each call it once
and turn the ``Written`` it returns into their state update and events. What it had to do
along the way (a fallback, a cut text, an extractive report) is told through ``warn`` as it
happens, and counted in ``Written.counts``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ponder.core.deep_state import Note
from ponder.core.sources import Source
from ponder.core.warnings import collapse
from ponder.services.model.llm import LLM, Warn
from ponder.services.report.composer import ComposedReport, compose_report
from ponder.services.report.drafting import Drafter
from ponder.services.report.nearness import nearness
from ponder.services.report.parts import completed_parts
from ponder.services.report.prompting import notes_markdown
from ponder.services.research.aspects import Aspect, covered_in_report
from ponder.services.search.backends.local.embeddings import Embedder

EXTRACTIVE = (
    "The model's report text was unusable; wrote an extractive report (cited findings and "
    "quotes from the sources) instead."
)


@dataclass(frozen=True)
class Material:
    """What a report is written from: the question, its parts, the sources read, and the
    loop's running ``summary`` or (``notes`` not None) the deep pipeline's notes, one per
    researched sub-topic, with its ``brief``."""

    topic: str
    aspects: Sequence[Aspect]
    sources: list[Source]
    summary: str = ""
    notes: list[Note] | None = None
    brief: str = ""
    problems: Sequence[str] = ()  # the run's warnings: a report of nothing found says them
    # False: no model call (a budget left too little): the report is built from the sources
    # and the summary's (or the notes') cited findings, as when the model's text is unusable.
    drafted: bool = True


@dataclass
class Written:
    """The report, what it was written from (``notes``: the summary, or all the notes as
    one text), and what writing it did. ``composed`` is None when no source was found:
    then nothing was written or checked."""

    markdown: str
    notes: str
    composed: ComposedReport | None = None
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def cited(self) -> list[Source]:
        return self.composed.cited if self.composed else []

    @property
    def citations(self) -> list[dict[str, Any]]:
        return self.composed.citations if self.composed else []

    @property
    def extractive(self) -> bool:
        return bool(self.composed and self.composed.extractive)


async def write_report(
    llm: LLM, material: Material, *, warn: Warn, embedder: Embedder | None = None
) -> Written:
    """The checked report of ``material``: the model's text, streamed live and cut where it
    degenerated (then completed from the findings), every citation checked against the
    passage it rests on, with a Sources section of exactly what it cites; an extractive
    report when the model's text rests on nothing read, its quotes chosen by meaning beside
    words when there is an ``embedder`` (semantic search's model)."""
    topic, sources, aspects = material.topic, material.sources, material.aspects
    if not sources:
        return Written(nothing_found(topic, material.problems), "")
    drafter = Drafter(llm, topic, sources, aspects, warn)
    if material.notes is None:
        notes = material.summary
        body = await drafter.from_summary(notes) if material.drafted else ""
    else:
        notes = notes_markdown(material.notes)
        brief = material.brief or topic
        body = await drafter.from_notes(material.notes, notes, brief) if material.drafted else ""
    body, completed = completed_parts(body, sources, aspects)
    if completed:
        warn(
            f"The report cited nothing on {', '.join(completed)}; added a quote of the source "
            "most about it."
        )
    compose = functools.partial(
        compose_report,
        topic,
        body,
        notes,
        sources,
        aspects=aspects,
        strict=llm.config.strict_citations,
        evidence=drafter.evidence,
    )
    composed = compose()
    if composed.extractive and embedder is not None:
        near = await nearness(embedder, topic, sources, warn)
        if near:
            composed = compose(nearness=near)
    counts = drafter.counts
    if completed:
        counts["parts_completed"] += len(completed)
    checked = composed.checked
    for key, amount in (
        ("citations_removed", composed.citations_removed),
        ("citations_checked", checked.checked),
        ("citations_repointed", checked.repointed),
        ("citations_added", checked.added),
        ("sentences_unsupported", checked.unsupported),
    ):
        if amount:
            counts[key] += amount
    if aspects:
        counts["aspects"] += len(aspects)
        counts["aspects_covered"] += covered_in_report(aspects, composed.markdown)
    if composed.extractive:
        counts["extractive_report"] += 1
        warn(EXTRACTIVE)
    return Written(composed.markdown, notes, composed, dict(counts))


def nothing_found(topic: str, problems: Sequence[str]) -> str:
    """The report when no source was found: what went wrong, and what to try instead."""
    lines = [f"# {topic}", "", "No sources were found, so there is nothing to report.", ""]
    if problems:
        lines += ["What went wrong:", "", *[f"- {w}" for w in collapse(problems)], ""]
    lines.append("Try other search settings (--search, --docs) or a rephrased question.")
    return "\n".join(lines) + "\n"
