"""What a finished run returns."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ponder.core.sources import Source, source_key
from ponder.core.untrusted import printable
from ponder.core.warnings import collapse

# Follows a sentence of the report that none of the sources it cites supports (the
# verification in services/report/verify.py writes it; the HTML page shows it).
UNSUPPORTED_MARK = "[unsupported]"


class SourceRef(BaseModel):
    """A source as the caller sees it.

    ``number`` is the ``[n]`` the report cites it by: cited sources are 1..k in order of
    first citation (as in the Sources section), the others read but not cited follow.
    ``registry_number`` is its stable number inside the run (shared by all researchers).
    """

    number: int
    registry_number: int = 0
    cited: bool = False
    url: str = Field(description="Web URL or local file path.")
    title: str
    origin: str = "web"
    passages: list[str] = Field(default_factory=list, description="What was actually read.")
    locations: list[str] = Field(default_factory=list)
    authors: list[str] = Field(
        default_factory=list, description="Who wrote it, as the document's metadata says."
    )
    date: str | None = Field(default=None, description="When, as ISO 8601 (2021-03-04).")
    link: str | None = Field(
        default=None,
        description="A paper of your reference library: its DOI (https://doi.org/…) or URL.",
    )


class Citation(BaseModel):
    """One ``[n]`` of the report: the sentence it backs and the passage span it rests on."""

    sentence: str = Field(description="The report's sentence, without its citations.")
    number: int = Field(description="The [n] the report cites, as in its Sources section.")
    url: str
    passage: int = Field(description="Index into the source's ``passages``.")
    start: int = Field(description="Where the span starts in that passage (characters).")
    end: int
    quote: str = Field(description="The span's text, whitespace collapsed.")
    support: float = Field(description="Share of the sentence's weighted words it holds.")


class RunStats(BaseModel):
    """What the run cost."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    search_calls: int = 0
    search_seconds: float = 0.0
    rounds: int = Field(
        0, description="Search rounds: the loop's, and in the deep pipeline each researcher's."
    )
    retries: int = 0
    fallbacks: int = 0
    citations_removed: int = 0
    queries_replaced: int = Field(0, description="Junk model queries replaced by ponder's own.")
    sufficient_overruled: int = Field(
        0, description="'Sufficient' verdicts ignored because the summary did not back them."
    )
    claims_dropped: int = Field(0, description="Empty, duplicate or echoed summary claims.")
    generations_stopped: int = Field(
        0, description="Model texts stopped mid-stream because they echoed or looped."
    )
    texts_rejected: int = Field(0, description="Briefs and questions replaced as unusable.")
    extractive_report: bool = Field(
        False, description="The report was built from the notes and quotes, not model prose."
    )
    texts_cut: int = Field(
        0, description="Model texts kept up to where they degenerated, the rest completed."
    )
    chars_cut: int = Field(0, description="Characters of degenerate model text cut off.")
    citations_checked: int = Field(
        0, description="Citations (and uncited sentences) checked against the passages."
    )
    citations_repointed: int = Field(
        0, description="Citations moved to the source whose passage supports the sentence."
    )
    citations_added: int = Field(
        0, description="Uncited sentences given the citation of a passage that supports them."
    )
    sentences_unsupported: int = Field(
        0, description="Sentences no source supports: marked [unsupported], or dropped."
    )
    aspects: int = Field(
        0, description="Parts of a joined question (0 for a question with one part)."
    )
    aspects_covered: int = Field(
        0, description="Of those parts, how many a cited passage of the report is about."
    )
    parts_completed: int = Field(
        0, description="Parts the written report left uncited, completed with a quote."
    )
    report_sections: int = Field(0, description="Sections of a deep report written one by one.")
    budget_ended: str = Field(
        "", description="The budget that ended the research early: time or tokens (none: '')."
    )
    sections_from_notes: int = Field(
        0, description="Report sections made of cited notes: the model's text was unusable."
    )
    broad_not_handed_off: int = Field(
        0, description="Topics judged broad that the loop finished without the deep pipeline."
    )
    wall_seconds: float = 0.0
    node_seconds: dict[str, float] = Field(default_factory=dict)
    host_calls: dict[str, int] = Field(
        default_factory=dict, description="Model calls answered by each Ollama host."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Each warning once; one repeated for other queries with its count.",
    )

    @classmethod
    def from_state(cls, stats: dict[str, Any], rounds: int, wall: float) -> RunStats:
        """``rounds``: the loop's own count, for a run recorded before every round was
        counted in ``stats`` (researchers' rounds included, as a live view counts them)."""
        known = {k: v for k, v in stats.items() if k in cls.model_fields}
        known["extractive_report"] = bool(stats.get("extractive_report"))
        known["warnings"] = collapse(stats.get("warnings") or [])
        known["rounds"] = int(stats.get("rounds") or rounds)
        return cls(**{**known, "wall_seconds": round(wall, 3)})


class Report(BaseModel):
    """A research report with its sources, costs and the id that resumes its thread."""

    topic: str
    markdown: str
    summary: str
    sources: list[SourceRef]
    stats: RunStats
    thread_id: str
    citations: list[Citation] = Field(
        default_factory=list, description="Each citation with the passage span it rests on."
    )
    turn: int | None = Field(
        default=None,
        description="Which question of its thread it answers (1: the first; a follow-up's "
        "is 2, 3…); None when not read back from the run history.",
    )

    def cited_sources(self) -> list[SourceRef]:
        """The sources the report cites, in its numbering (its Sources section)."""
        return [source for source in self.sources if source.cited]

    @classmethod
    def from_state(cls, topic: str, thread_id: str, values: dict[str, Any], wall: float) -> Report:
        """The report of a finished run, from its graph state."""
        stats = values.get("stats") or {}
        return cls(
            topic=topic,
            markdown=printable(values.get("report") or ""),
            summary=printable(values.get("running_summary") or ""),
            sources=report_sources(values.get("sources") or [], values.get("cited_sources") or []),
            stats=RunStats.from_state(stats, int(values.get("research_loop_count") or 0), wall),
            thread_id=thread_id,
            citations=[Citation(**c) for c in values.get("citations") or []],
        )


def report_sources(registry: list[Source], cited: list[Source]) -> list[SourceRef]:
    """Every source read, numbered as the report cites them: cited 1..k, then the rest."""
    numbers = {source_key(s["url"]): s["number"] for s in cited}
    ordered = sorted(
        registry,
        key=lambda s: (
            source_key(s["url"]) not in numbers,
            numbers.get(source_key(s["url"]), 0),
            s["number"],
        ),
    )
    refs = []
    for position, source in enumerate(ordered, start=1):
        key = source_key(source["url"])
        refs.append(
            SourceRef(
                number=numbers.get(key, position),
                registry_number=source["number"],
                cited=key in numbers,
                url=source["url"],
                title=source["title"],
                origin=source["origin"],
                passages=list(source["passages"]),
                locations=list(source.get("locations") or []),
                authors=list(source.get("authors") or []),
                date=source.get("date"),
                link=source.get("link"),
            )
        )
    return refs


def report_numbers(report: Report) -> dict[str, Any]:
    """Each source read, by its address: the number the report cites it by (a live view
    showed it by its number in the run, or in its researcher) and whether it is cited."""
    return {
        "sources": [
            {"url": s.url, "number": s.number, "registry": s.registry_number, "cited": s.cited}
            for s in report.sources
        ]
    }
