"""Which files make the results of a local search, and how each is shown.

The candidates come from each index's :class:`~.ranking.Ranking` (one per folder, a
search of several folders asks each); they are ranked together by their scores, and a file
whose best passage mostly repeats a better-ranked file's (a copy, a page and its source)
gives up its slot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ponder.services.search.backends.local.fusion import fuse
from ponder.services.search.backends.local.ranking import (
    Candidates,
    FileAbout,
    Passage,
    Ranking,
    query_words,
)
from ponder.services.search.base import SearchResult

DUPLICATE_SHARE = 0.6  # of a passage's word triples found in a better-ranked one


def search(
    rankings: Sequence[Ranking],
    query: str,
    max_results: int,
    per_file: int = 2,
    query_vector: list[float] | None = None,
    embed_model: str | None = None,
) -> list[SearchResult]:
    """The ``max_results`` best files of one index or several (one per folder), one result
    each with its ``per_file`` best passages.

    Files are chosen by BM25 (title weighted double) on the words that tell files apart;
    the passages within a chosen file by BM25 on the query's words, each after the first
    the one that adds most of the words those before it lack, so "read and write JSON
    files" picks the json page for "json", then its passages about dump() and load(). With a
    ``query_vector`` from ``embed_model`` (semantic search on), the files whose passages
    are nearest to it form a second ranking, fused with BM25's by their rescaled scores
    (``fuse``), and a file's nearest passages join its BM25 ones. Several indexes' files
    are ranked together, by the same scores, as if they were one index.
    """
    words = query_words(query)
    if (not words and query_vector is None) or max_results <= 0:
        return []
    found = [r.candidates(words, max_results * 8, query_vector, embed_model) for r in rankings]
    owner: dict[str, Candidates] = {}
    lexical: dict[str, float] = {}
    similarity: dict[str, float] = {}
    for candidates in found:
        for path in [*candidates.lexical, *candidates.near]:
            owner.setdefault(path, candidates)
        lexical.update(candidates.lexical)
        similarity.update(candidates.similarity)
    if any(c.near for c in found):
        ranked = fuse(lexical, similarity)
    else:  # a stable sort: one index's own order, ties kept
        ranked = sorted(lexical, key=lambda path: -lexical[path])
    best: dict[str, list[Passage]] = {}
    shown: list[set[tuple[str, ...]]] = []
    for path in ranked:
        candidates = owner[path]
        near = candidates.near.get(path, [])
        passages = candidates.ranking.passages_in(path, candidates, near, per_file)
        if not passages:
            continue
        # A copy, or a page and its source: the better-ranked file has the slot.
        grams = shingles(passages[0][4])
        if any(repeats(grams, earlier) for earlier in shown):
            continue
        shown.append(grams)
        best[path] = passages
        if len(best) == max_results:
            break
    return [
        _result(path, passages, words, owner[path].ranking.about(path))
        for path, passages in best.items()
    ]


def shingles(text: str, size: int = 3) -> set[tuple[str, ...]]:
    """The text's runs of ``size`` words, lower-cased, markup and punctuation ignored."""
    words = re.findall(r"[^\W_]+", text.lower())
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def repeats(passage: set[tuple[str, ...]], earlier: set[tuple[str, ...]]) -> bool:
    """Whether most of the shorter of two passages is in the other (0.6 of its shingles):
    passages of two files cut at different places, or with markup, still match."""
    smaller = min(len(passage), len(earlier))
    return smaller > 0 and len(passage & earlier) >= DUPLICATE_SHARE * smaller


def _result(
    path: str, passages: list[Passage], words: Sequence[str], about: FileAbout
) -> SearchResult:
    """One file's hit: its best passages in file order, each located ("slide 3, chars …"
    in a deck), with what the file says of its authors and date."""
    title = passages[0][0]
    snippet = _snippet(passages[0][4], words)
    ordered = sorted(passages, key=lambda p: (p[3] or 0, p[1]))
    locations = [
        f"{about.part} {page}, chars {start}-{end}" if page else f"chars {start}-{end}"
        for _, start, end, page, _ in ordered
    ]
    return SearchResult(
        title=title,
        url=path,
        snippet=snippet,
        content="\n…\n".join(p[4] for p in ordered),
        origin="local",
        backend="local",
        location="; ".join(locations),
        authors=about.authors,
        date=about.date,
    )


def _snippet(body: str, words: Sequence[str], width: int = 240) -> str:
    lowered = body.lower()
    hits = [i for i in (lowered.find(w) for w in words) if i >= 0]
    start = max(0, min(hits) - width // 4) if hits else 0
    piece = " ".join(body[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(body) else "")
