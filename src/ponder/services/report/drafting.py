"""The report's text as the model writes it: streamed live and guarded, then repaired.

A draft comes back whole, cut before where it degenerated, or empty when it was unusable
(see ``LLM.draft``; ``grounding`` decides what rests on the sources). A cut draft is
completed from the notes and quotes of what it misses (``extractive.completion``); an
empty one is left for the composer, which writes an extractive report in its place.

The loop's report is drafted in one call from the running summary; the deep pipeline's in
one call from all the researchers' notes when they fit the window, else a section at a
time, and a section whose text is unusable shows its cited notes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ponder.core.deep_state import Note
from ponder.core.sources import Source
from ponder.services.model.llm import LLM, Draft, Warn
from ponder.services.model.prompt import Prompt
from ponder.services.report.extractive import cited_findings, completion
from ponder.services.report.grounding import Grounding
from ponder.services.report.prompting import notes_prompt, section_prompt, summary_prompt
from ponder.services.report.support import Evidence
from ponder.services.research.aspects import Aspect


class Drafter:
    """Drafts and repairs the texts of one report on ``topic``, over the ``sources`` it
    may cite; what it had to do is told through ``warn`` and added up in ``counts``."""

    def __init__(
        self,
        llm: LLM,
        topic: str,
        sources: list[Source],
        aspects: Sequence[Aspect],
        warn: Warn,
    ) -> None:
        self.llm = llm
        self.topic = topic
        self.sources = sources
        self.aspects = aspects  # the question's parts, which quotes of a completion are on
        self.evidence = Evidence(sources)
        self.warn = warn
        self.counts: Counter[str] = Counter()

    async def from_summary(self, summary: str) -> str:
        """The loop's report body: one draft from the running summary (none without one)."""
        prompt = summary_prompt(self.llm, self.topic, summary, self.sources, self.aspects)
        draft = await self.draft(prompt, self.topic) if summary.strip() else Draft("")
        return self.repaired(draft, summary, self.topic, self.sources, self.aspects)

    async def from_notes(self, notes: list[Note], text: str, brief: str) -> str:
        """The deep pipeline's report body from the researchers' ``notes`` (``text``: all of
        them as one): one draft when they fit the window, else one per sub-topic; none when
        every researcher came back empty-handed (the sources are then quoted)."""
        if not notes:
            return ""
        prompt = notes_prompt(self.llm, self.topic, brief, text)
        if prompt is not None:
            draft = await self.draft(prompt, self.topic)
            return self.repaired(draft, text, self.topic, self.sources, self.aspects)
        self.counts["report_sections"] += len(notes)
        return await self._by_section(notes)

    async def _by_section(self, notes: list[Note]) -> str:
        """One call per sub-topic; a section whose text is unusable shows its cited notes.
        A cut section is completed from its notes alone, quoting no source."""
        parts = [f"# {self.topic}"]
        for note in notes:
            about = f"{self.topic} {note['topic']}"
            draft = await self.draft(section_prompt(self.topic, note), about)
            section = self.repaired(draft, note["summary"], about, [], ())
            if not section:
                self.counts["sections_from_notes"] += 1
                findings = cited_findings(note["summary"], about)
                section = "\n".join([f"## {note['topic']}", *findings])
            parts.append(section)
        return "\n\n".join(parts)

    async def draft(self, prompt: Prompt, topic: str) -> Draft:
        """The text as the model writes it (streamed live): whole, cut before where it
        degenerated, or empty when it was unusable."""
        grounding = Grounding(self.evidence, topic)
        return await self.llm.draft(
            prompt,
            accept=grounding.accept,
            watch=grounding.watch,
            salvage=grounding.worth_keeping,
            live=True,
        )

    def repaired(
        self,
        draft: Draft,
        notes: str,
        topic: str,
        sources: list[Source],
        aspects: Sequence[Aspect],
    ) -> str:
        """The draft's text; when it was cut, completed from the notes (and quotes of
        ``sources`` it cites nothing of) for what it misses."""
        if not draft.text and draft.problem:
            self.llm.usage.fallbacks += 1
            self.warn(f"Model text unusable ({draft.problem}); used a fallback.")
        if not draft.cut:
            return draft.text
        self.counts["texts_cut"] += 1
        self.counts["chars_cut"] += draft.cut_chars
        self.warn(
            f"The model's text degenerated ({draft.problem}); kept the "
            f"{len(draft.text.split())} words it wrote before that and completed it from the "
            "findings."
        )
        problem = draft.problem or ""
        return completion(draft.text, notes, topic, problem, sources, aspects=aspects)
