"""Quoting a source: short excerpts of the passages read of it, most relevant to a question.

A quote is a run of whole lines of one passage, about ``QUOTE_CHARS`` long, that never
crosses into another passage or section and holds no line the page shares with other
sources (headers, footers, notices) or opens every passage with (its head). The extractive
report and the completion of a cut text quote the sources so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ponder.core.sources import Source
from ponder.services.report.support import line_key, shared_lines
from ponder.services.text.citations import defuse
from ponder.services.text.passages import bm25_scores, covering_order

QUOTE_CHARS = 320
# A section label: capitals alone, as pydoc and man pages head their sections.
_LABEL = re.compile(r"[A-Z][A-Z0-9 ,:&/()'-]*[A-Z:)]")
_ADDRESS = re.compile(r"(?:https?://|www\.)\S+|<\S+@\S+>")
_ENDS_SENTENCE = re.compile(r"[.!?:;]['\")\]]*$")


def boilerplate(sources: list[Source]) -> set[str]:
    """Lines found in more than one source: headers, footers, notices — never the answer."""
    return shared_lines(sources, 2)


def lead(source: Source) -> set[str]:
    """The lines every passage of the source opens with (as ``line_key`` gives them): the
    page's head — its title, name, address, a generated-page notice — that a search put
    before each passage it found, and never what answers."""
    passages = list(dict.fromkeys(source["passages"]))  # one passage read twice has no lead
    if len(passages) < 2:
        return set()
    common: set[str] = set()
    for lines in zip(*(p.splitlines() for p in passages), strict=False):
        keys = {line_key(line) for line in lines}
        if len(keys) > 1:
            break
        common |= keys - {""}
    return common


def quote(source: Source, topic: str, shared: set[str] | None = None, limit: int = 1) -> str:
    """A block quoting up to ``limit`` short excerpts of the source's passages most relevant
    to the topic, best first and no line twice (passages may overlap), under one citation.

    Candidates are runs of whole lines (so a quote starts where a line of the page does),
    never across two passages or two sections, without lines shared with other sources;
    those that start a sentence or a paragraph, unless none of them matches the topic. After
    the best, each excerpt is the one that adds most of the topic's words those before it
    lack ("read and write JSON files": ``load()`` beside ``dump()``).
    """
    windows = [
        window
        for number, passage in enumerate(source["passages"])
        for window in _windows(number, passage, shared or set())
    ]
    if not windows:
        return ""
    windows.sort(key=lambda w: w.preference)  # among equal scores, the preferred first
    starts = [w for w in windows if w.starts_sentence]
    scores = _scores(starts, topic)
    if any(scores):
        windows = starts
    else:
        scores = _scores(windows, topic)
    ranked = covering_order([_words_of(w) for w in windows], topic, scores)
    quoted: set[str] = set()  # by text: two passages of a source may overlap
    excerpts: list[str] = []
    for i in ranked:
        window = windows[i]
        if len(excerpts) == limit or (scores[i] <= 0 and excerpts):  # the first always shows
            break
        if quoted.intersection(window.lines):
            continue
        quoted.update(window.lines)
        excerpt = _inline(defuse(" ".join(window.text.split())))
        if len(excerpt) > QUOTE_CHARS:
            excerpt = excerpt[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
        excerpts.append(f"> {excerpt}\n>\n")
    title = " ".join((source["title"] or source["url"]).split())
    return "".join(excerpts) + f"> — {title} [{source['number']}]"


def _scores(windows: list[Window], topic: str) -> list[float]:
    # No length normalisation: a window's tail is a shorter window that must not win by it.
    return bm25_scores([_words_of(w) for w in windows], topic, b=0.0)


def _words_of(window: Window) -> str:
    """What a window says: a link's words are its address, not what the page says
    ("docs.python.org/…/json.html")."""
    return _ADDRESS.sub(" ", window.text)


# What makes a line a block in Markdown: a heading, a list item, a rule, a quote, a fence.
_HEADING = re.compile(r"#{1,6}\s+")
_BLOCK_START = re.compile(r"(?:[-+*=>|`~]|\d{1,9}[.)])")


def _inline(excerpt: str) -> str:
    """A quote is one paragraph of the page's words: a page's "# Tides" would otherwise
    turn the whole quote into a heading, and its "1." into a list."""
    excerpt = _HEADING.sub("", excerpt, count=1) if _HEADING.match(excerpt) else excerpt
    start = _BLOCK_START.match(excerpt)
    return excerpt[: start.end() - 1] + "\\" + excerpt[start.end() - 1 :] if start else excerpt


@dataclass(frozen=True)
class Window:
    passage: int  # which of the source's passages
    start: int  # the line of the passage it starts at
    lines: tuple[str, ...]  # the lines it quotes, as line_key gives them
    text: str
    opens_paragraph: bool
    starts_sentence: bool  # it opens a paragraph, or the line before it ends a sentence

    @property
    def preference(self) -> tuple[int, bool, int]:
        """Among equally relevant windows: the best-ranked passage, a quote that opens a
        paragraph (the signature or heading above a text), then the one with least lead-in."""
        return (self.passage, not self.opens_paragraph, -self.start)


def _windows(number: int, passage: str, shared: set[str]) -> list[Window]:
    """Runs of consecutive lines of about QUOTE_CHARS, one starting at each line.

    Lines without a letter or digit (blank, "|", "----") only separate paragraphs. A label
    (a line of capitals alone: NAME, MODULE REFERENCE, FUNCTIONS) begins a section: a
    window may open with it, as the heading of the text below, but never runs into the
    next one, so a page's header block (its name, its address, a generated-page notice)
    cannot ride into a quote on the words of a neighbouring section.
    """
    lines: list[str] = []
    opens: list[bool] = []
    sentence: list[bool] = []
    sections: list[int] = []
    section, after_break, after_sentence = 0, True, True
    for raw in passage.splitlines():
        line = raw.strip()
        label = _LABEL.fullmatch(line) is not None
        section += label  # a label shared with other sources is not quoted, yet ends one
        if not any(c.isalnum() for c in line):
            after_break = True
        elif line_key(line) in shared:
            after_break = after_break or label
        else:
            sentence.append(after_break or label or after_sentence)
            lines.append(line)
            opens.append(after_break)
            sections.append(section)
            after_break = False
        after_sentence = label or _ENDS_SENTENCE.search(line) is not None
    windows = []
    for start in range(len(lines)):
        text, end = "", start
        for line, in_section in zip(lines[start:], sections[start:], strict=True):
            if text and (len(text) + len(line) > QUOTE_CHARS or in_section != sections[start]):
                break
            text = f"{text} {line}".strip()
            end += 1
        keys = tuple(line_key(line) for line in lines[start:end])
        windows.append(Window(number, start, keys, text, opens[start], sentence[start]))
    return windows
