"""Checks on the text a model writes: prompt echo and repetition, also while it streams.

A schema guarantees the form of an answer, not its sense. A weak model often answers with
its own instructions ("You write a short research report in Markdown…") or falls into a
loop that repeats one line until ``num_predict`` runs out. Both are caught here, on the
finished text and on the text as it streams, so a looping call is stopped within a line
or two instead of costing the whole token budget.

The thresholds are chosen so that a sensible answer never trips them: an echo needs ten
words inside runs of six or more consecutive instruction words; a repeated line three
words (shorter lines, such as "**Example:**", may repeat); a repeated sentence five words;
a phrase of eight words three copies. Code blocks repeat lines legitimately, so inside them only a
line of some length seen six times counts.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ponder.services.thinking import strip_thinking
from ponder.services.words import words

ECHO_NGRAM = 6  # consecutive instruction words that count as one echoed run
ECHO_WORDS = 10  # words of the text inside echoed runs before it counts as an echo
LOOP_NGRAM = 8
LOOP_NGRAM_COPIES = 3
TAIL_WORDS = 60  # the last words of a long text…
TAIL_MIN_DISTINCT = 12  # …must hold at least this many distinct words

_CITATION = re.compile(r"\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CHECK_EVERY_CHARS = 160  # streamed text without a line break is checked this often


@dataclass(frozen=True)
class Problem:
    """Why a text was rejected, in words a user can read in a warning."""

    reason: str


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
    tokens = words(text)
    grams = _instruction_ngrams()
    covered: set[int] = set()
    for i in range(len(tokens) - ECHO_NGRAM + 1):
        if tuple(tokens[i : i + ECHO_NGRAM]) in grams:
            covered.update(range(i, i + ECHO_NGRAM))
    return len(covered)


def echoes_prompt(text: str) -> bool:
    return echoed_words(text) >= ECHO_WORDS


def _normal(line: str) -> str:
    return " ".join(words(_CITATION.sub(" ", line)))


_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)(^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
CODE_LINE_COPIES = 6
CODE_LINE_CHARS = 12


def repetition(text: str) -> str | None:
    """What repeats in ``text`` (a line, a sentence, a phrase, a short loop), or None."""
    code = [m.group(2) for m in _FENCE.finditer(text)]
    prose = _FENCE.sub("\n", text)
    return _prose_repetition(prose) or _code_repetition("\n".join(code))


def _prose_repetition(text: str) -> str | None:
    lines = Counter(n for n in map(_normal, text.splitlines()) if n)
    for line, copies in lines.items():
        if copies >= 2 and len(line.split()) >= 3:
            return f"a line is repeated ({line[:60]!r})"
    sentences = Counter(
        n
        for n in (_normal(s) for s in _SENTENCE_END.split(text.replace("\n", " ")))
        if len(n.split()) >= 5
    )
    for sentence, copies in sentences.items():
        if copies >= 2:
            return f"a sentence is repeated ({sentence[:60]!r})"
    tokens = words(_CITATION.sub(" ", text))
    grams = Counter(tuple(tokens[i : i + LOOP_NGRAM]) for i in range(len(tokens) - LOOP_NGRAM + 1))
    if grams and max(grams.values()) >= LOOP_NGRAM_COPIES:
        phrase = " ".join(grams.most_common(1)[0][0])
        return f"a phrase is repeated ({phrase[:60]!r})"
    tail = words(text)[-TAIL_WORDS:]
    if len(tail) == TAIL_WORDS and len(set(tail)) < TAIL_MIN_DISTINCT:
        return "the text loops over a few words"
    return None


def _code_repetition(code: str) -> str | None:
    lines = Counter(x.strip() for x in code.splitlines() if len(x.strip()) >= CODE_LINE_CHARS)
    for line, copies in lines.items():
        if copies >= CODE_LINE_COPIES:
            return f"a line of code is repeated ({line[:60]!r})"
    return None


# The delimiters ponder wraps source text and notes in; an answer never needs them outside
# code (an HTML answer may well mention a `<source>` element, in backticks or a code block).
_DELIMITER = re.compile(r"</?\s*(source|notes)\b", re.IGNORECASE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def problem(text: str) -> Problem | None:
    """Why ``text`` is unusable as model prose, or None when it reads as an answer."""
    if echoes_prompt(text):
        return Problem("it repeats the prompt's instructions")
    if _DELIMITER.search(_INLINE_CODE.sub(" ", _FENCE.sub("\n", text))):
        return Problem("it reproduces the prompt's <source>/<notes> blocks")
    looping = repetition(text)
    return Problem(looping) if looping else None


class StreamCheck:
    """Feed streamed pieces; ``feed`` returns a Problem as soon as the text degenerates.

    The whole text is checked again at each line or sentence end (and every few hundred
    characters without one): answers are short, so this stays cheap.
    """

    def __init__(self, watch: Callable[[str], str | None] | None = None) -> None:
        self.text = ""
        self._checked = 0
        self._watch = watch

    def feed(self, piece: str) -> Problem | None:
        self.text += piece
        boundary = "\n" in piece or re.search(r"[.!?]\s*$", piece) is not None
        if not boundary and len(self.text) - self._checked < _CHECK_EVERY_CHARS:
            return None
        self._checked = len(self.text)
        visible = strip_thinking(self.text)
        found = problem(visible)
        if found is None and self._watch is not None:
            reason = self._watch(visible)
            found = Problem(reason) if reason else None
        return found
