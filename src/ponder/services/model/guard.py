"""Checks on the text a model writes: prompt echo and loops, also while it streams.

A schema guarantees the form of an answer, not its sense. A weak model often answers with
its own instructions ("You write a short research report in Markdown…") or falls into a
loop that repeats one line until ``num_predict`` runs out. Both are caught here, on the
finished text and on the text as it streams, so a looping call is stopped within a line
or two instead of costing the whole token budget. A capable model's report repeats too —
headings, key phrases, the odd sentence — which ``repetition`` tells apart from a loop.

An echo needs ten words inside runs of six or more consecutive instruction words. Every
problem says where in the text it starts, so what came before it can be kept.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ponder.services.model.repetition import find_loop
from ponder.services.model.thinking import strip_thinking
from ponder.services.text.words import words

ECHO_NGRAM = 6  # consecutive instruction words that count as one echoed run
ECHO_WORDS = 10  # words of the text inside echoed runs before it counts as an echo
_CHECK_EVERY_CHARS = 160  # streamed text without a line break is checked this often…
_CHECK_SENTENCE_CHARS = 40  # …and at a sentence's end, when this much is new
# While a text streams, only its last few thousand characters are searched for a loop: a
# loop is caught as its second copy ends, and the whole text is checked when it is done.
_STREAM_WINDOW_CHARS = 4000


@dataclass(frozen=True)
class Problem:
    """Why a text was rejected, in words a user can read in a warning, and the character
    offset where the unusable part begins (0: the whole text)."""

    reason: str
    start: int = 0


@functools.cache
def _instruction_ngrams() -> frozenset[tuple[str, ...]]:
    """Runs of ECHO_NGRAM words from every prompt template, never across a placeholder."""
    from ponder import prompts

    grams: set[tuple[str, ...]] = set()
    for template in prompts.templates():
        for segment in re.split(r"\{[a-z_]+\}", template):
            tokens = words(segment)
            grams.update(
                tuple(tokens[i : i + ECHO_NGRAM]) for i in range(len(tokens) - ECHO_NGRAM + 1)
            )
    return frozenset(grams)


def echoed_words(text: str) -> int:
    """How many words of ``text`` lie inside runs copied from the prompt templates."""
    return len(_echoed(words(text)))


def _echoed(tokens: list[str]) -> set[int]:
    grams = _instruction_ngrams()
    covered: set[int] = set()
    for i in range(len(tokens) - ECHO_NGRAM + 1):
        if tuple(tokens[i : i + ECHO_NGRAM]) in grams:
            covered.update(range(i, i + ECHO_NGRAM))
    return covered


def echoes_prompt(text: str) -> bool:
    return echoed_words(text) >= ECHO_WORDS


def _echo_start(text: str) -> int | None:
    """Where the echo begins (the first copied run), when the text is an echo."""
    found = list(_WORD.finditer(text.lower()))
    covered = _echoed([m.group() for m in found])
    return found[min(covered)].start() if len(covered) >= ECHO_WORDS else None


_WORD = re.compile(r"\w+(?:'\w+)?")  # as words.words(), with offsets
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)


# The delimiters ponder wraps source text and notes in; an answer never needs them outside
# code (an HTML answer may well mention a `<source>` element, in backticks or a code block).
_DELIMITER = re.compile(r"</?\s*(source|notes)\b", re.IGNORECASE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def problem(text: str) -> Problem | None:
    """Why ``text`` is unusable as model prose, or None when it reads as an answer."""
    echo = _echo_start(text)
    if echo is not None:
        return Problem("it repeats the prompt's instructions", echo)
    delimiter = _DELIMITER.search(_INLINE_CODE.sub(_blank, _FENCE.sub(_blank, text)))
    if delimiter:
        return Problem("it reproduces the prompt's <source>/<notes> blocks", delimiter.start())
    loop = find_loop(text)
    return Problem(loop.reason, loop.start) if loop else None


def _blank(match: re.Match[str]) -> str:
    """Blank out a match, keeping line breaks and offsets."""
    return re.sub(r"[^\n]", " ", match.group())


class StreamCheck:
    """Feed streamed pieces; ``feed`` returns a Problem as soon as the text degenerates.

    The text is checked at each line break and sentence end, and every few hundred
    characters without either;
    a loop is looked for in the last few thousand characters only, so a long report costs
    no more to check per piece than a short one.
    """

    def __init__(self, watch: Callable[[str], str | None] | None = None) -> None:
        self.text = ""
        self._checked = 0
        self._watch = watch

    def feed(self, piece: str) -> Problem | None:
        self.text += piece
        fresh = len(self.text) - self._checked
        sentence_end = fresh >= _CHECK_SENTENCE_CHARS and re.search(r"[.!?]\s*$", piece)
        if "\n" not in piece and not sentence_end and fresh < _CHECK_EVERY_CHARS:
            return None
        self._checked = len(self.text)
        visible = strip_thinking(self.text)
        found = _recent_problem(visible)
        if found is None and self._watch is not None:
            reason = self._watch(visible)
            found = Problem(reason) if reason else None
        return found


def _recent_problem(text: str) -> Problem | None:
    if len(text) <= _STREAM_WINDOW_CHARS:
        return problem(text)
    start = text.rfind("\n", 0, len(text) - _STREAM_WINDOW_CHARS) + 1
    window = text[start:]
    opened = len(re.findall(r"(?m)^[ \t]*(?:```|~~~)", text[:start])) % 2 == 1
    lead = "```\n" if opened else ""  # the window starts inside a code block
    found = problem(lead + window)
    if found is None:
        return None
    return Problem(found.reason, max(start + found.start - len(lead), start))
