"""Does a source say what a sentence claims? Lexical support, span by span.

Every passage ponder read is cut into spans of one or two of its sentences. A claim is
supported by a span as far as the span holds the claim's content words, each weighted by
how rare it is among everything read (so "Python" or "module" count for little, "bisect"
or "insort" for much): support is the weighted share of the claim's words found in the
span, between 0 and 1. A claim copied from a source scores near 1 with it; a paraphrase
keeps its rare words and scores well; another page on the same topic shares only the
common words and scores low. Two refinements keep the measure honest: a word no source
uses weighs what an average word does (models write "allows", "provides", "way", which
technical pages may never use: that is no evidence against the claim), and lines found in
many sources — page headers, notices — support nothing. A source's title counts as part
of each of its spans: a sentence about ``json`` names the page it rests on.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ponder.core.sources import Source
from ponder.services.text.words import content_words, stem

_PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")  # text between blank lines
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_LINE = re.compile(r"[^\n]+")
MAX_SENTENCE_CHARS = 400
MAX_SPAN_CHARS = 600
PAIR_PENALTY = 0.05  # a span of two sentences must hold more of the claim to be preferred


@dataclass(frozen=True)
class Span:
    """Where in what was read a claim rests: source number, passage index, character span."""

    source: int
    passage: int
    start: int
    end: int


@dataclass(frozen=True)
class Match:
    span: Span
    score: float
    words: int  # how many of the claim's distinct content stems the span holds


def claim_stems(sentence: str) -> set[str]:
    return {stem(w) for w in content_words(sentence)}


class Evidence:
    """An index of every span of every source's passages, to score claims against."""

    def __init__(self, sources: Iterable[Source]) -> None:
        self.texts: dict[tuple[int, int], str] = {}
        self.spans: list[Span] = []
        self._pairs: list[bool] = []  # spans of two sentences rank a little below one
        self._postings: dict[str, list[int]] = defaultdict(list)
        self._words: dict[int, set[str]] = defaultdict(set)  # every stem a source holds
        passage_stems: list[set[str]] = []
        sources = list(sources)
        # Lines three sources hold are a site's headers, footers, notices; two pages
        # sharing one ("The attributes are:", a page and its mirror) still support it.
        shared = shared_lines(sources, 3)
        for source in sources:
            title = claim_stems(source["title"])
            for index, passage in enumerate(source["passages"]):
                self.texts[(source["number"], index)] = passage
                passage_stems.append(claim_stems(passage))
                self._words[source["number"]] |= passage_stems[-1]
                lines = _line_spans(passage, shared)
                for start, end, pair in _spans(passage):
                    own = " ".join(  # its words, but for lines other sources hold too
                        passage[max(a, start) : min(b, end)]
                        for a, b, common in lines
                        if a < end and b > start and not common
                    )
                    if own.strip():
                        self._add(Span(source["number"], index, start, end), own, pair, title)
        documents = max(len(passage_stems), 1)
        frequency: dict[str, int] = defaultdict(int)
        for stems in passage_stems:
            for word in stems:
                frequency[word] += 1
        self._idf = {w: math.log(1 + documents / n) for w, n in frequency.items()}
        seen = list(self._idf.values())
        self._unseen = sum(seen) / len(seen) if seen else 1.0

    def _add(self, span: Span, text: str, pair: bool, title: set[str]) -> None:
        number = len(self.spans)
        self.spans.append(span)
        self._pairs.append(pair)
        for word in claim_stems(text) | title:
            self._postings[word].append(number)

    def weight(self, word: str) -> float:
        return self._idf.get(word, self._unseen)

    def matches(self, sentence: str, sources: Iterable[int] | None = None) -> list[Match]:
        """The best span of each source (or of the given ones) for ``sentence``, best first."""
        stems = claim_stems(sentence)
        total = sum(self.weight(w) for w in stems)
        if not total:
            return []
        allowed = None if sources is None else set(sources)
        scores: dict[int, float] = defaultdict(float)
        counts: dict[int, int] = defaultdict(int)
        for word in stems:
            for number in self._postings.get(word, ()):
                scores[number] += self.weight(word)
                counts[number] += 1
        best: dict[int, Match] = {}
        ranks: dict[int, float] = {}
        for number, score in scores.items():
            span = self.spans[number]
            if allowed is not None and span.source not in allowed:
                continue
            found = Match(span, score / total, counts[number])
            rank = found.score - PAIR_PENALTY * self._pairs[number]
            known = ranks.get(span.source)
            if known is None or rank > known:
                best[span.source], ranks[span.source] = found, rank
        return sorted(best.values(), key=lambda m: (-m.score, m.span.source))

    def holding(self, source: int, sentence: str) -> Match | None:
        """The first span of the source that holds every content word of ``sentence``, in
        lines other sources share too ("Availability: Unix.") as well as its own."""
        stems = claim_stems(sentence)
        if not stems or not stems <= self._words.get(source, set()):
            return None
        for (number, index), passage in self.texts.items():
            if number != source:
                continue
            for start, end, _ in _spans(passage):
                if stems <= claim_stems(passage[start:end]):
                    return Match(Span(source, index, start, end), 1.0, len(stems))
        return None

    def quote(self, span: Span) -> str:
        return " ".join(self.texts[(span.source, span.passage)][span.start : span.end].split())


def line_key(line: str) -> str:
    """A line as lines are compared across sources: lower case, spaces collapsed."""
    return " ".join(line.lower().split())


def _line_spans(passage: str, shared: set[str]) -> list[tuple[int, int, bool]]:
    """The passage's lines as (start, end, whether other sources hold it too)."""
    found, position = [], 0
    for line in passage.split("\n"):
        key = line_key(line)
        if key:
            found.append((position, position + len(line), key in shared))
        position += len(line) + 1
    return found


def shared_lines(sources: list[Source], at_least: int) -> set[str]:
    """The lines (as ``line_key`` gives them) that ``at_least`` of the sources hold."""
    seen: dict[str, int] = defaultdict(int)
    for source in sources:
        for line in {line_key(x) for p in source["passages"] for x in p.splitlines()}:
            if line:
                seen[line] += 1
    return {line for line, count in seen.items() if count >= at_least}


def _spans(passage: str) -> list[tuple[int, int, bool]]:
    """One- and two-sentence spans of a passage: (start, end, whether two sentences)."""
    sentences = _sentences(passage)
    spans = []
    for i, (start, end) in enumerate(sentences):
        spans.append((start, end, False))
        if i + 1 < len(sentences) and sentences[i + 1][1] - start <= MAX_SPAN_CHARS:
            spans.append((start, sentences[i + 1][1], True))
    return spans


def _sentences(passage: str) -> list[tuple[int, int]]:
    """Sentences as (start, end) offsets. Lines are often wrapped (pydoc, PDFs), so a line
    break ends a sentence only at a blank line, or inside a run too long to be one."""
    found = []
    for paragraph in _PARAGRAPH.finditer(passage):
        for piece in _pieces(paragraph.group(), paragraph.start()):
            text = passage[piece[0] : piece[1]]
            if any(c.isalnum() for c in text):
                lead = len(text) - len(text.lstrip())
                found.append((piece[0] + lead, piece[0] + len(text.rstrip())))
    return found


def _pieces(paragraph: str, offset: int) -> list[tuple[int, int]]:
    pieces, begin = [], 0
    for end in [m.end() for m in _SENTENCE_END.finditer(paragraph)] + [len(paragraph)]:
        if end - begin > MAX_SENTENCE_CHARS:  # a listing or code: its lines, then
            for line in _LINE.finditer(paragraph, begin, end):
                pieces.append((offset + line.start(), offset + line.end()))
        elif end > begin:
            pieces.append((offset + begin, offset + end))
        begin = end
    return pieces
