"""Loops, told apart from reports: what repeats, how close together, and how densely.

A model stuck in a loop repeats itself back to back — a line, a sentence, a few lines, a
phrase — and the tail of its text loses variety. A good report repeats too, but spread out
and in its structure: the title as the first heading, one sub-heading under several
sections, an outline item as a later heading, a key phrase now and then, one sentence in two
steps of a tutorial. So repetition is judged by adjacency and density, never by a count
anywhere in the text. A loop is:

- a block of one to eight lines or sentences repeated right after itself (headings alone
  must come three times: a title is often repeated as the first heading);
- a run of words repeated back to back: three copies of a phrase of nine words or more in
  all, or two of a phrase of eight words or more;
- one sentence coming back so often that it makes a quarter of the text around it;
- a tail of 60 words with fewer than 12 distinct ones;
- a paragraph of 20 words or more, or a tail of 100 words, most of which copies earlier
  text (a loop of a long period, or one that varies a little).

Inside code blocks only lines of some length repeated back to back four times count. Each
finding says where the repetition begins (the second copy), so what came before it can be
kept.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

BLOCK_UNITS = 8  # the longest block of lines or sentences looked for as a repeated block
BLOCK_WORDS = 3  # a block shorter than this must come four times
PHRASE_WORDS = 20  # the longest phrase looked for as repeated back to back
PHRASE_RUN_WORDS = 9  # three copies of a phrase must hold this many words in all
LONG_PHRASE_WORDS = 8  # a phrase this long is a loop at its second back-to-back copy
RECUR_COPIES, RECUR_SHARE = 3, 0.25  # a sentence this often, this dense around it
TAIL_WORDS, TAIL_MIN_DISTINCT = 60, 12
COPY_WINDOW, COPY_GRAM, COPY_SHARE = 100, 6, 0.6
PARAGRAPH_WORDS, PARAGRAPH_COPIED = 20, 0.7
CODE_LINE_CHARS, CODE_COPIES = 12, 4

_WORD = re.compile(r"\w+(?:'\w+)?")
_CITATION = re.compile(r"\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_HEADING = re.compile(r"[ \t]*#{1,6}\s")
_BLOCK_START = re.compile(r"[ \t]*(?:[-*+|>]|\d{1,3}[.)])[ \t]")  # an item, a row, a quote


@dataclass(frozen=True)
class Loop:
    """What repeats, and the character offset where the repetition starts."""

    reason: str
    start: int


@dataclass(frozen=True)
class Unit:
    """A heading, a sentence (of a paragraph, list item or table row) or a code block."""

    kind: str  # "heading", "text" or "code"
    key: str  # its words, lower-case, citations left out
    start: int
    words: int


@dataclass
class Layout:
    """The text cut into units, and its prose words (headings and code left out)."""

    units: list[Unit] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    barriers: set[int] = field(default_factory=set)  # word indexes a phrase may not span
    paragraphs: list[int] = field(default_factory=list)  # the word index each one starts at
    code: list[tuple[int, str]] = field(default_factory=list)  # (offset, code)


def find_loop(text: str) -> Loop | None:
    """The first sign of a loop in ``text`` by the rules above, or None."""
    layout = layout_of(text)
    found = [
        loop
        for loop in [
            _repeated_block(layout.units),
            _repeated_phrase(layout),
            _recurring_sentence(layout.units),
            _monotonous_tail(layout),
            *_copies(layout),
            _repeated_code(layout.code),
        ]
        if loop is not None
    ]
    return min(found, key=lambda loop: loop.start) if found else None


def layout_of(text: str) -> Layout:
    layout = Layout()
    position = 0
    for fence in _FENCE.finditer(text):
        _add_prose(layout, text, position, fence.start())
        layout.code.append((fence.start(2), fence.group(2)))
        layout.units.append(Unit("code", " ".join(fence.group(2).split()), fence.start(), 0))
        layout.barriers.add(len(layout.words))
        layout.paragraphs.append(len(layout.words))
        position = fence.end()
    _add_prose(layout, text, position, len(text))
    return layout


def _add_prose(layout: Layout, text: str, start: int, end: int) -> None:
    # Citations are blanked out, not removed, so that offsets stay those of ``text``.
    prose = _CITATION.sub(lambda m: " " * len(m.group()), text[start:end]).lower()
    position = start
    for line in prose.split("\n"):
        if not line.strip() or _HEADING.match(line) or _BLOCK_START.match(line):
            layout.paragraphs.append(len(layout.words))
        if _HEADING.match(line):
            words = _WORD.findall(line)
            if words:
                layout.units.append(Unit("heading", " ".join(words), position, len(words)))
                layout.barriers.add(len(layout.words))  # a heading is structure, no phrase
        else:
            _add_sentences(layout, line, position)
        position += len(line) + 1


def _add_sentences(layout: Layout, line: str, position: int) -> None:
    begin = 0
    ends = [m.start() for m in _SENTENCE_END.finditer(line)] + [len(line)]
    for end in ends:
        matches = list(_WORD.finditer(line, begin, end))
        if matches:
            first = position + matches[0].start()
            key = " ".join(m.group() for m in matches)
            layout.units.append(Unit("text", key, first, len(matches)))
            layout.words += [m.group() for m in matches]
            layout.offsets += [position + m.start() for m in matches]
        begin = end


# -- the rules ------------------------------------------------------------------------


def _repeated_block(units: list[Unit]) -> Loop | None:
    for i in range(1, len(units)):
        for size in range(1, min(BLOCK_UNITS, i) + 1):
            block, copy = units[i - size : i], units[i : i + size]
            if len(copy) < size or not _same(block, copy):
                continue
            copies = 2 + _more_copies(units, i + size, block)
            words = sum(u.words for u in block) or BLOCK_WORDS
            if all(u.kind == "heading" for u in block):
                needed = 3
            else:
                needed = 2 if words >= BLOCK_WORDS else 4
            if copies >= needed:
                kinds = {"heading": "heading", "code": "code block"}
                what = f"a {kinds.get(block[0].kind, 'sentence')}"
                what = what if size == 1 else f"a block of {size} lines or sentences"
                return Loop(f"{what} is repeated ({block[0].key[:60]!r})", units[i].start)
    return None


def _same(a: list[Unit], b: list[Unit]) -> bool:
    return all(x.kind == y.kind and x.key == y.key for x, y in zip(a, b, strict=True))


def _more_copies(units: list[Unit], at: int, block: list[Unit]) -> int:
    count = 0
    while units[at : at + len(block)] and _same(block, units[at : at + len(block)]):
        if len(units[at : at + len(block)]) < len(block):
            break
        count += 1
        at += len(block)
    return count


def _repeated_phrase(layout: Layout) -> Loop | None:
    words, found = layout.words, None
    barrier = _next_barriers(layout)
    for size in range(1, PHRASE_WORDS + 1):
        run = 0
        for j in range(len(words) - size):
            if words[j] == words[j + size] and barrier[j] > j + size:
                run += 1
            else:
                run = 0
            copies = (run + size) // size
            if (copies >= 3 and copies * size >= PHRASE_RUN_WORDS) or (
                copies >= 2 and size >= LONG_PHRASE_WORDS
            ):
                start = j + size - run + 1  # the second copy
                if found is None or layout.offsets[start] < found.start:
                    phrase = " ".join(words[start - size : start])
                    found = Loop(f"a phrase is repeated ({phrase[:60]!r})", layout.offsets[start])
                break
    return found


def _next_barriers(layout: Layout) -> list[int]:
    """For each word, the index of the first barrier after it (a phrase may not span it)."""
    following = [len(layout.words) + PHRASE_WORDS + 1] * (len(layout.words) + 1)
    for i in range(len(layout.words) - 1, -1, -1):
        following[i] = i + 1 if i + 1 in layout.barriers else following[i + 1]
    return following


def _recurring_sentence(units: list[Unit]) -> Loop | None:
    seen: dict[str, list[int]] = {}
    for index, unit in enumerate(units):
        if unit.kind != "text" or unit.words < 5:
            continue
        places = seen.setdefault(unit.key, [])
        places.append(index)
        if len(places) >= RECUR_COPIES:
            recent = places[-RECUR_COPIES:]
            if RECUR_COPIES / (recent[-1] - recent[0] + 1) >= RECUR_SHARE:
                return Loop(f"a sentence keeps coming back ({unit.key[:60]!r})", unit.start)
    return None


def _monotonous_tail(layout: Layout) -> Loop | None:
    words = layout.words
    if len(words) < TAIL_WORDS or len(set(words[-TAIL_WORDS:])) >= TAIL_MIN_DISTINCT:
        return None
    # Where the monotony begins: the longest tail that stays as poor in words.
    distinct: set[str] = set()
    start = len(words) - TAIL_WORDS
    for i in range(len(words) - 1, -1, -1):
        distinct.add(words[i])
        if len(distinct) * TAIL_WORDS < TAIL_MIN_DISTINCT * (len(words) - i):
            start = min(start, i)
    return Loop("the text loops over a few words", layout.offsets[start])


def _copies(layout: Layout) -> list[Loop | None]:
    """A paragraph, or the tail, that mostly copies what came before it."""
    words = layout.words
    first: dict[tuple[str, ...], int] = {}
    copied = [False] * len(words)
    for i in range(len(words) - COPY_GRAM + 1):
        if first.setdefault(tuple(words[i : i + COPY_GRAM]), i) < i:  # seen before
            copied[i : i + COPY_GRAM] = [True] * COPY_GRAM
    found: list[Loop | None] = []
    starts = sorted({*layout.paragraphs, len(words)})
    for start, end in itertools.pairwise(starts):
        if end - start >= PARAGRAPH_WORDS and sum(copied[start:end]) >= PARAGRAPH_COPIED * (
            end - start
        ):
            found.append(Loop("a paragraph copies an earlier one", layout.offsets[start]))
            break
    tail = copied[-COPY_WINDOW:]
    if len(words) >= COPY_WINDOW + COPY_GRAM and sum(tail) >= COPY_SHARE * COPY_WINDOW:
        start = len(words) - COPY_WINDOW + tail.index(True)
        found.append(Loop("the text copies itself", layout.offsets[start]))
    return found


def _repeated_code(code: list[tuple[int, str]]) -> Loop | None:
    for offset, block in code:
        lines = block.split("\n")
        positions = [offset + sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
        run = 1
        for i in range(1, len(lines)):
            same = lines[i].strip() == lines[i - 1].strip()
            run = run + 1 if same and len(lines[i].strip()) >= CODE_LINE_CHARS else 1
            if run >= CODE_COPIES:
                line = lines[i].strip()
                return Loop(f"a line of code is repeated ({line[:60]!r})", positions[i - run + 2])
    return None
