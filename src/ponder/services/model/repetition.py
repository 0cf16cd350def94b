"""Loops, told apart from reports: what repeats, how close together, and how densely.

A model stuck in a loop repeats itself back to back — a line, a sentence, a few lines, a
phrase — and the tail of its text loses variety. A good report repeats too, but spread out
and in its structure: the title as the first heading, one sub-heading under several
sections, an outline item as a later heading, a key phrase now and then, one sentence in two
steps of a tutorial — even back to back, as reference pages do when two functions end
with the same sentence. So repetition is judged by adjacency and density, never by a count
anywhere in the text, and a loop is what keeps going: three copies or more of

- a block of one to eight lines, headings or sentences, back to back (four of a sentence of
  one or two words, such as "**Note:**");
- a phrase, back to back, of nine words or more in all;
- a sentence, so often that it makes half of the text around it (every other sentence);

or a tail of 60 words with fewer than 12 distinct ones, or a tail that mostly copies the
text just before it, in order, two periods long (a loop of a long period, or one that
varies a little). Inside code blocks only lines of some length count: one repeated back
to back four times, or a block of two to eight such lines three times. Each finding says
where the repetition begins (the second copy), so what came before it can be kept.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

COPIES = 3  # copies of a block, phrase or sentence that make a loop
BLOCK_UNITS = 8  # the longest block of lines or sentences looked for as a repeated block
BLOCK_WORDS = 3  # a block shorter than this must come four times
PHRASE_WORDS = 20  # the longest phrase looked for as repeated back to back
PHRASE_RUN_WORDS = 9  # three copies of a phrase must hold this many words in all
RECUR_SHARE = 0.5  # a sentence that makes this share of the text around it
TAIL_WORDS, TAIL_MIN_DISTINCT = 60, 12
COPY_WINDOW, COPY_GRAM, COPY_SHARE = 100, 6, 0.6
PERIOD_SLACK = 3  # words a loop's period may vary by
CODE_LINE_CHARS, CODE_COPIES = 12, 4

_WORD = re.compile(r"\w+(?:'\w+)?")
_CITATION = re.compile(r"\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_HEADING = re.compile(r"[ \t]*#{1,6}\s")


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
            _copied_tail(layout),
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
        position = fence.end()
    _add_prose(layout, text, position, len(text))
    return layout


def _add_prose(layout: Layout, text: str, start: int, end: int) -> None:
    # Citations are blanked out, not removed, so that offsets stay those of ``text``.
    prose = _CITATION.sub(lambda m: " " * len(m.group()), text[start:end]).lower()
    position = start
    for line in prose.split("\n"):
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
            short = words < BLOCK_WORDS and any(u.kind != "heading" for u in block)
            if copies >= COPIES + short:
                kinds = {"heading": "heading", "code": "code block"}
                what = f"a {kinds.get(block[0].kind, 'sentence')}"
                what = what if size == 1 else f"a block of {size} lines or sentences"
                return Loop(f"{what} is repeated ({block[0].key[:60]!r})", units[i].start)
    return None


def _same(block: list[Unit], units: list[Unit]) -> bool:
    """Whether ``units`` begin with a copy of ``block``."""
    return len(units) >= len(block) and all(
        x.kind == y.kind and x.key == y.key for x, y in zip(block, units, strict=False)
    )


def _more_copies(units: list[Unit], at: int, block: list[Unit]) -> int:
    count = 0
    while len(units[at : at + len(block)]) == len(block) and _same(block, units[at:]):
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
            if copies >= COPIES and copies * size >= PHRASE_RUN_WORDS:
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
        if len(places) >= COPIES:
            recent = places[-COPIES:]
            if COPIES / (recent[-1] - recent[0] + 1) >= RECUR_SHARE:
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


def _copied_tail(layout: Layout) -> Loop | None:
    """The tail mostly copies what came just before it, in order: a loop of a long period,
    or one that varies a little. Each copied phrase is measured by how far back its last
    copy is; in a loop most of the tail shares one such distance (its period, give or take
    a few words). A recap — "key takeaways" quoting sentences from all over the report —
    copies too, but from many distances; and reference pages describe parallel functions
    in parallel words, one paragraph at a time, which is no loop either."""
    words = layout.words
    if len(words) < COPY_WINDOW + COPY_GRAM:
        return None
    last: dict[tuple[str, ...], int] = {}
    shift = [0] * len(words)  # how far back the latest copy of the phrase here began
    for i in range(len(words) - COPY_GRAM + 1):
        gram = tuple(words[i : i + COPY_GRAM])
        if gram in last:
            for j in range(i, i + COPY_GRAM):
                shift[j] = shift[j] or i - last[gram]
        last[gram] = i
    tail = [d for d in shift[-COPY_WINDOW:] if d]
    if len(tail) < COPY_SHARE * COPY_WINDOW:
        return None
    count, period = _one_period(tail)
    window = max(COPY_WINDOW, (COPIES - 1) * period)  # two repetitions after the original
    if window > len(words) or count < COPY_SHARE * COPY_WINDOW:
        return None
    recent = [d for d in shift[-window:] if d and abs(d - period) <= _slack(period)]
    if len(recent) < COPY_SHARE * window:
        return None
    start = len(words) - window + next(i for i, d in enumerate(shift[-window:]) if d)
    return Loop("the text copies itself", layout.offsets[start])


def _one_period(shifts: list[int]) -> tuple[int, int]:
    """How many of ``shifts`` lie within a few words of one another, and their median."""
    ordered = sorted(shifts)
    best, low, best_low = 0, 0, 0
    for high, value in enumerate(ordered):
        while value - ordered[low] > 2 * _slack(ordered[low]):
            low += 1
        if high - low + 1 > best:
            best, best_low = high - low + 1, low
    return best, ordered[best_low + best // 2]


def _slack(period: int) -> int:
    return max(PERIOD_SLACK, period // 10)


def _repeated_code(code: list[tuple[int, str]]) -> Loop | None:
    """A line of code four times back to back, or a block of two to eight lines three
    times, each line of some length: code and its output repeat a line now and then
    (``next(it)``, a tree's ``text/plain`` leaves), not whole blocks of statements."""
    for offset, block in code:
        raw = block.split("\n")
        lines = [line.strip() for line in raw]
        # Where each line starts: the check runs again on every streamed piece.
        positions = list(itertools.accumulate((len(x) + 1 for x in raw[:-1]), initial=offset))
        for size in range(1, BLOCK_UNITS + 1):
            copies = CODE_COPIES if size == 1 else COPIES
            for start in range(len(lines) - size * copies + 1):
                unit = lines[start : start + size]
                if any(len(line) < CODE_LINE_CHARS for line in unit):
                    continue
                if all(
                    lines[start + k * size : start + (k + 1) * size] == unit for k in range(copies)
                ):
                    return Loop(f"code is repeated ({unit[0][:60]!r})", positions[start + size])
    return None
