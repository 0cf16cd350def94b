"""A generated report: its Markdown parts, its units (each sentence, list item or table row
with the page it really came from and the page it cites) and its source pages."""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ponder.core.sources import Source
from ponder.testing.pydocs import Block, Page

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`“\"'(])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|no)\.$", re.I)
_WORD = re.compile(r"\w+")


@dataclass
class Unit:
    """A sentence, list item or table row (cells joined by tabs) and where it came from."""

    text: str
    page: int  # index into the report's pages: where the text really is
    cited: int | None  # the page its [n] names; None when it is written uncited


@dataclass
class Part:
    """One Markdown element: heading, para, bullets, numbers, table, code or outline."""

    kind: str
    units: list[Unit] = field(default_factory=list)
    text: str = ""  # a heading's text, a code block's code, an outline's items (one a line)
    level: int = 0  # a heading's level
    language: str = ""  # a code block's
    header: tuple[str, ...] = ()  # a table's


@dataclass
class Window:
    """The blocks of one section of a page that a report uses."""

    heading: str
    level: int
    blocks: list[Block]


@dataclass
class Excerpt:
    """A source page as the run reads it: the sections the report uses, in their markup."""

    page: Page
    windows: list[Window] = field(default_factory=list)

    @property
    def subject(self) -> str:
        """What the page is about, in a few words ("operator", "Sorting HOW TO")."""
        return self.page.title.replace("`", "").split(" — ")[0]

    @property
    def file_name(self) -> str:
        return self.page.name.replace("/", "__") + ".html"

    def html(self) -> str:
        title = _escape(self.page.title.replace("`", ""))
        parts = [f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"]
        parts.append(f"<h1>{title}</h1>")
        for window in self.windows:
            if window.level > 1:
                parts.append(f"<h{window.level}>{_escape(window.heading)}</h{window.level}>")
            parts += [block.html for block in window.blocks]
        return "\n".join([*parts, "</body></html>"]) + "\n"

    @functools.cached_property
    def words(self) -> list[str]:
        """The page's words in order, title and headings included."""
        texts = [self.page.title]
        for window in self.windows:
            texts += [window.heading] if window.level > 1 else []
            texts += [line for block in window.blocks for line in block.lines]
        return tokens("\n".join(texts))

    def paragraphs(self) -> list[str]:
        return [line for w in self.windows for b in w.blocks for line in b.lines]


@dataclass
class GeneratedReport:
    seed: int
    topic: str  # what the run is asked: the pages' subjects
    title: str  # the report's own title
    pages: list[Excerpt]
    parts: list[Part]
    misdirected: float = 0.0  # the share of citations pointed at a wrong page

    def units(self) -> list[Unit]:
        return [unit for part in self.parts for unit in part.units]

    def words(self) -> int:
        return sum(len(u.text.split()) for u in self.units())

    def write_pages(self, folder: Path) -> list[Path]:
        """Write each source page (as HTML) into ``folder``; returns their paths."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / excerpt.file_name for excerpt in self.pages]
        for path, excerpt in zip(paths, self.pages, strict=True):
            path.write_text(excerpt.html(), encoding="utf-8")
        return paths

    def sources(self, folder: Path) -> list[Source]:
        """The pages as ponder's ``Source`` records, numbered 1..k in page order."""
        return [
            Source(
                number=i + 1,
                url=str(folder / page.file_name),
                title=page.page.title,
                origin="local",
                passages=page.paragraphs(),
                locations=[],
            )
            for i, page in enumerate(self.pages)
        ]


def misdirect(report: GeneratedReport, share: float, seed: int = 0) -> GeneratedReport:
    """A copy whose ``share`` of citations (exactly, rounded) name another of its pages."""
    rng = random.Random(seed)
    parts = [replace(p, units=[replace(u) for u in p.units]) for p in report.parts]
    copy = replace(report, parts=parts, misdirected=share)
    cited = [u for u in copy.units() if u.cited is not None]
    for unit in rng.sample(cited, round(share * len(cited))):
        unit.cited = rng.choice([i for i in range(len(copy.pages)) if i != unit.page])
    return copy


def sentences(paragraph: str) -> list[str]:
    """A paragraph's sentences (not split after "e.g." and the like)."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(paragraph):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += " " + piece
        else:
            out.append(piece)
    return [s for s in out if s.strip()]


def tokens(text: str) -> list[str]:
    """Lower-case words: what is compared when text is looked for in other text (inline
    code marks dropped first: "`Example`s" is one word)."""
    return _WORD.findall(text.replace("`", "").lower())


def contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    """Whether ``needle``'s words occur in ``haystack`` in a row."""
    return bool(needle) and f" {' '.join(needle)} " in f" {' '.join(haystack)} "


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
