"""What an export holds, whatever its format: the conversation's turns, each its question,
its report as blocks, and its cited sources with the evidence behind each ``[n]``.

A report is a conversation of one turn. With several, each turn is a section headed by its
question and keeps its own sources: turn 2's ``[1]`` is not turn 1's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ponder.core.result import Report, SourceRef
from ponder.core.sources import byline
from ponder.interfaces.exports.blocks import (
    Block,
    Run,
    clean,
    markdown_blocks,
    plain,
    web_link,
)
from ponder.interfaces.html.markdown import Evidence


@dataclass
class Quote:
    """The evidence of one citation: the span of a passage the sentence rests on.
    ``index`` is its place in ``Report.citations``; a ``[n]`` of the text points to it."""

    index: int
    number: int
    sentence: str
    quote: str
    passage: int  # 1-based: the source's passage it is in
    where: str  # the passage's location in its source (a page, a section), if known

    @property
    def note(self) -> str:
        """What the quote is evidence for, and where it was read: the sentence only when
        it says more than the quote itself (an extractive report's sentence is the quote)."""
        said = f"Evidence for [{self.number}]"
        if _words(self.sentence) != _words(self.quote):
            said += f" in “{self.sentence}”"
        place = f"passage {self.passage}" + (f", {self.where}" if self.where else "")
        return f"{said} — {place}"


@dataclass
class Cited:
    """A cited source as every format lists it."""

    number: int
    title: str
    url: str
    link: str | None  # the URL when it is a web address (a file's path is no link)
    published: str | None  # a library paper's DOI link or URL
    authors: list[str]
    date: str | None
    origin: str
    byline: str
    quotes: list[Quote] = field(default_factory=list)


@dataclass
class Turn:
    number: int  # 1-based
    question: str
    blocks: list[Block]
    sources: list[Cited]
    thread_id: str

    def quote(self, index: int | None) -> Quote | None:
        for source in self.sources:
            for quote in source.quotes:
                if quote.index == index:
                    return quote
        return None


@dataclass
class Document:
    title: str
    turns: list[Turn]

    @property
    def several(self) -> bool:
        return len(self.turns) > 1

    def heading_level(self, level: int) -> int:
        """A report's heading level in the document: one deeper under a turn's question."""
        return min(level + 1, 6) if self.several else level

    @property
    def sources_level(self) -> int:
        """The Sources' heading: beside the report's sections."""
        return self.heading_level(2)


def as_reports(reports: Report | Sequence[Report]) -> list[Report]:
    """One report, or a conversation's reports in order, as a list (never empty)."""
    found = [reports] if isinstance(reports, Report) else list(reports)
    if not found or not all(isinstance(report, Report) for report in found):
        from ponder.core.errors import InvalidInputError

        raise InvalidInputError("Export needs a Report, or a list of the Reports of a thread.")
    return found


def document(reports: Report | Sequence[Report]) -> Document:
    found = as_reports(reports)
    # As the thread counts its turns (one that failed keeps its place), else by position.
    turns = [turn(report.turn or number, report) for number, report in enumerate(found, 1)]
    if len(turns) == 1:  # the report's title first, then the question if it says more
        only = turns[0]
        first = only.blocks[0] if only.blocks else None
        if first is None or first.kind != "heading" or first.level != 1:
            only.blocks.insert(0, Block("heading", level=1, runs=[Run(only.question)]))
        elif plain(first.runs).strip() != only.question:
            asked = [Run("Question: ", italic=True), Run(only.question, italic=True)]
            only.blocks.insert(1, Block("paragraph", runs=asked))
    return Document(title=clean(found[0].topic), turns=turns)


def turn(number: int, report: Report) -> Turn:
    # The Sources list is built in code as the last "## Sources" section (as for the HTML).
    body, found, _listed = report.markdown.rpartition("\n## Sources\n")
    if not found:
        body = report.markdown
    sources = report.cited_sources()
    known = {source.number: source for source in sources}
    blocks = markdown_blocks(body, set(known), Evidence(report.citations, known))
    return Turn(
        number=number,
        question=clean(report.topic),
        blocks=blocks,
        sources=[cited(source, report) for source in sources],
        thread_id=clean(report.thread_id),
    )


def cited(source: SourceRef, report: Report) -> Cited:
    quotes = [
        Quote(
            index=index,
            number=citation.number,
            sentence=clean(citation.sentence),
            quote=clean(citation.quote),
            passage=citation.passage + 1,
            where=clean(_location(source, citation.passage)),
        )
        for index, citation in enumerate(report.citations)
        if citation.number == source.number
    ]
    return Cited(
        number=source.number,
        title=clean(source.title or source.url),
        url=clean(source.url),
        link=web_link(source.url),
        published=web_link(source.link),
        authors=[clean(name) for name in source.authors if name.strip()],
        date=clean(source.date or "") or None,
        origin=clean(source.origin),
        byline=clean(byline(source.model_dump())),  # type: ignore[arg-type]
        quotes=quotes,
    )


def _location(source: SourceRef, passage: int) -> str:
    return source.locations[passage] if 0 <= passage < len(source.locations) else ""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


# Under each turn's "Sources" heading, in the PDF, DOCX and ODT alike.
SOURCES_INTRO = (
    "Each source with the evidence behind its citations: the span of what was read that "
    "each cited sentence rests on."
)


def footer(doc: Document) -> str:
    ids = ", ".join(dict.fromkeys(turn.thread_id for turn in doc.turns))
    return f"Written by ponder · run {ids}"
