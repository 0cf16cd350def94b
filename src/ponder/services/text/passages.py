"""Passages: text cut on paragraph boundaries, and the ones that answer a query (BM25).

The local index stores passages; the research loop, the summary and the report's excerpts
show a model the passages of a page most relevant to the question, in page order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ponder.services.text.words import content_words, stem

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n\s*")


def paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each paragraph: text between blank lines, without outer whitespace."""
    spans = []
    pos = 0
    for sep in [*_BLANK_LINE.finditer(text), None]:
        stop = sep.start() if sep else len(text)
        piece = text[pos:stop]
        stripped = piece.strip()
        if stripped:
            first = pos + (len(piece) - len(piece.lstrip()))
            spans.append((first, first + len(stripped)))
        pos = sep.end() if sep else stop
    return spans


def chunk_text(text: str, target: int = 1000, limit: int = 1200) -> list[tuple[int, int]]:
    """Split text into (start, end) spans on paragraph boundaries, each about ``target`` chars.

    Paragraphs are joined until a chunk reaches ``target``; one longer than ``limit`` is cut
    at the last whitespace before the limit.
    """
    spans: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    for p_start, p_end in paragraphs(text):
        if start is not None and p_end - start > limit:
            spans.append((start, end))
            start = None
        if start is None:
            start = p_start
        end = p_end
        while end - start > limit:
            window = text[start + target // 2 : start + limit]
            gap = max(window.rfind(" "), window.rfind("\n"))
            cut = start + target // 2 + gap if gap >= 0 else start + limit
            spans.append((start, cut))
            start = cut + 1 if gap >= 0 else cut
        if end - start >= target:
            spans.append((start, end))
            start = None
    if start is not None and end > start:
        spans.append((start, end))
    return spans


def tokenize(text: str) -> list[str]:
    """Stems of the content words (stopwords and question words dropped)."""
    return [stem(w) for w in content_words(text)]


def bm25_scores(passages: list[str], query: str, k1: float = 1.5, b: float = 0.75) -> list[float]:
    """Okapi BM25 score of each passage for the query."""
    terms = set(tokenize(query))
    docs = [Counter(tokenize(p)) for p in passages]
    if not docs or not terms:
        return [0.0] * len(passages)
    avg_len = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scores = []
    for doc in docs:
        length = sum(doc.values())
        score = 0.0
        for term in terms:
            tf = doc.get(term, 0)
            if tf:
                idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg_len))
        scores.append(score)
    return scores


COVER_AMONG = 32  # the best-scoring texts among which covering_order looks for new words


def covering_order(texts: Sequence[str], query: str, scores: Sequence[float]) -> list[int]:
    """Indexes of ``texts``, best first: the best-scoring one, then each time the one that
    holds most of the query's words that those before it lack, each word weighed by how
    rare it is among the texts (ties, and when none adds a word, by score). A page's second
    passage then adds what its first lacks ("read and write JSON files": ``load()`` beside
    ``dump()``) rather than more of the same words. Only the ``COVER_AMONG`` best are
    weighed so; the rest follow by score."""
    by_score = sorted(range(len(texts)), key=lambda i: (-scores[i], i))
    pool, rest = by_score[:COVER_AMONG], by_score[COVER_AMONG:]
    wanted = set(tokenize(query))
    held = {i: set(tokenize(texts[i])) & wanted for i in pool}
    weight = {w: math.log(1 + len(pool) / (1 + sum(w in h for h in held.values()))) for w in wanted}
    order: list[int] = []
    have: set[str] = set()
    while pool:
        gain = {i: sum(weight[w] for w in held[i] - have) for i in pool}
        pick = max(pool, key=lambda i: gain[i]) if order else pool[0]  # max keeps the first
        order.append(pick)
        have |= held[pick]
        pool.remove(pick)
    return order + rest


def best_passages(text: str, query: str, budget_chars: int) -> list[str]:
    """The passages of ``text`` most relevant to ``query`` that fit in ``budget_chars``.

    Passages are chosen by BM25 and returned in document order, so the result still reads
    as the page does. With no matching word, the opening passages are kept.
    """
    text = text.strip()
    if budget_chars <= 0 or not text:
        return []
    if len(text) <= budget_chars:
        return [text]
    size = max(200, min(800, budget_chars // 3))
    spans = chunk_text(text, target=size, limit=size + size // 4)
    passages = [text[s:e] for s, e in spans]
    scores = bm25_scores(passages, query)
    order = covering_order(passages, query, scores)
    chosen: list[int] = []
    used = 0
    for i in order:
        if used + len(passages[i]) <= budget_chars:
            chosen.append(i)
            used += len(passages[i])
    if not chosen:  # every passage is larger than the budget: cut the best one
        best = passages[order[0]][:budget_chars]
        return [best.rsplit(" ", 1)[0] if " " in best else best]
    return [passages[i] for i in sorted(chosen)]
