"""Which files and passages of the local index answer a query.

Files are ranked by BM25 over their passages (FTS5, the title weighted double) on the
words that tell files apart, and, with semantic search on, by their passages' nearness to
the query's vector, the two fused by their rescaled scores; a chosen file's passages
by BM25 on the query's words. A file whose best passage mostly repeats a better-ranked
file's (a copy, a page and its source) gives up its slot.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Callable, Sequence

from ponder.services.search.base import SearchResult
from ponder.services.search.local.vectors import VectorStore, fuse
from ponder.services.text.words import STOPWORDS

Warn = Callable[[str], None]
Passage = tuple[str, int, int, int | None, str]  # title, start, end, page, text

DUPLICATE_SHARE = 0.6  # of a passage's word triples found in a better-ranked one
# Files by their best passage. The window counts files, not passages: counted in passages,
# one part of a query ("send" in "send pickled objects") fills it with one page's passages
# and the page about the other part never becomes a candidate.
_QUERY = """
WITH hit AS MATERIALIZED (
    SELECT rowid AS id, bm25(passages, 2.0, 1.0) AS score FROM passages WHERE passages MATCH ?
)
SELECT f.path, min(hit.score) AS best FROM hit JOIN chunks AS c ON c.id = hit.id
JOIN files AS f ON f.id = c.file_id GROUP BY f.id ORDER BY best LIMIT ?
"""
# The best passages of one file for a query.
_IN_FILE = """
SELECT f.title, c.start, c.end, c.page, passages.body
FROM passages JOIN chunks AS c ON c.id = passages.rowid JOIN files AS f ON f.id = c.file_id
WHERE passages MATCH ? AND f.path = ? ORDER BY bm25(passages, 2.0, 1.0) LIMIT ?
"""
_PASSAGE = """
SELECT f.title, c.start, c.end, c.page, p.body
FROM chunks AS c JOIN passages AS p ON p.rowid = c.id JOIN files AS f ON f.id = c.file_id
WHERE c.id = ?
"""
_TITLED_FILES = (
    "SELECT DISTINCT f.path FROM passages JOIN chunks AS c ON c.id = passages.rowid "
    "JOIN files AS f ON f.id = c.file_id WHERE passages MATCH ? LIMIT ?"
)
_FILE_OF = "SELECT f.path FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE c.id = ?"
_COUNT_MATCHES = "SELECT count(*) FROM (SELECT 1 FROM passages WHERE passages MATCH ? LIMIT ?)"
_COUNT_FILES = (
    "SELECT count(*) FROM (SELECT DISTINCT c.file_id FROM passages JOIN chunks AS c "
    "ON c.id = passages.rowid WHERE passages MATCH ? LIMIT ?)"
)
_COMMON_FRACTION = 3  # a word in more than 1/3 of passages barely moves BM25
_PRUNE_FROM = 2000  # passages; below this, every word is cheap enough to score
_FILE_SPREAD_FROM = 4  # files; in a smaller folder every word may matter
_TITLE_FILES = 2  # a word in more titles than this names a kind of page, not one topic
_NAMED_LIFT = 0.5  # of the best score, added to a page the query names


def query_words(text: str) -> list[str]:
    """Distinct lower-case words of a query, stopwords dropped unless nothing else is left."""
    words = list(dict.fromkeys(re.findall(r"\w+", text.lower())))
    return ([w for w in words if w not in STOPWORDS] or words)[:32]


def fts_query(words: Sequence[str]) -> str:
    """A safe FTS5 query: every word quoted (so no user text is FTS syntax), ORed."""
    return " OR ".join(f'"{w}"' for w in words)


class Ranking:
    """Queries over one open index; its owner holds the index's lock around each."""

    def __init__(self, conn: sqlite3.Connection, vectors: VectorStore, warn: Warn) -> None:
        self._conn = conn
        self.vectors = vectors
        self._warn = warn

    def search(
        self,
        query: str,
        max_results: int,
        per_file: int = 2,
        query_vector: list[float] | None = None,
        embed_model: str | None = None,
    ) -> list[SearchResult]:
        """The ``max_results`` best files, one result each with its ``per_file`` best passages.

        Files are chosen by BM25 (title weighted double) on the words that tell files apart;
        the passages within a chosen file by BM25 on every word of the query, so "read JSON
        files" picks the json page for "json", then its passage about reading files. With a
        ``query_vector`` from ``embed_model`` (semantic search on), the files whose passages
        are nearest to it form a second ranking, fused with BM25's by their rescaled scores
        (``fuse``), and a file's nearest passages join its BM25 ones.
        """
        words = query_words(query)
        if (not words and query_vector is None) or max_results <= 0:
            return []
        cheap = self._drop_frequent(words) if words else []
        lexical = self._lexical_files(cheap, max_results * 8)
        near, similarity = self._nearest_by_file(query_vector, embed_model, max_results * 8)
        ranked = fuse(lexical, similarity) if near else list(lexical)
        within = fts_query(cheap) if cheap else ""
        best: dict[str, list[Passage]] = {}
        shown: list[set[tuple[str, ...]]] = []
        for path in ranked:
            found = self._passages_in(path, within, near.get(path, []), per_file)
            if not found:
                continue
            # A copy, or a page and its source: the better-ranked file has the slot.
            grams = shingles(found[0][4])
            if any(repeats(grams, earlier) for earlier in shown):
                continue
            shown.append(grams)
            best[path] = found
            if len(best) == max_results:
                break
        return [_result(path, passages, words) for path, passages in best.items()]

    def _lexical_files(self, words: list[str], limit: int) -> dict[str, float]:
        """Files in the order of their best BM25 passage, each with its score, higher better.

        A page the query names (a word of its title that no more than two titles hold) is
        lifted by half the best score. BM25 weighs titles double, but a name that every
        other page mentions ("Helper for pickle" in each class of a pydoc page) weighs
        little: "send pickled objects" ranked pickle's page ninth, below pages that only
        say "send". Half the best lifts such a page above those, not above a page that
        matches far better ("a secret at the terminal": getpass, not secrets).
        """
        best: dict[str, float] = {}
        if not words:
            return best
        named_by = {w: self._named_by(w) for w in words}  # one title query per word
        telling = self._discriminating(words, {w for w, pages in named_by.items() if pages})
        for path, score in self._conn.execute(_QUERY, (fts_query(telling), limit)):
            best.setdefault(path, -score)  # FTS5's bm25() is negative, lower better
        named = {path for w in telling for path in named_by.get(w, [])}
        lift = max(best.values(), default=0.0) * _NAMED_LIFT
        return dict(
            sorted(
                ((path, score + lift * (path in named)) for path, score in best.items()),
                key=lambda item: -item[1],
            )
        )

    def _nearest_by_file(
        self, vector: list[float] | None, model: str | None, limit: int
    ) -> tuple[dict[str, list[int]], dict[str, float]]:
        """Files in the order of their nearest passage, each with its near passages' ids,
        nearest first, and with its nearest passage's similarity. Vector trouble leaves
        keyword search be."""
        if vector is None or model is None:
            return {}, {}
        try:
            nearest = self.vectors.nearest(vector, model, limit)
        except (OSError, ValueError, MemoryError) as exc:
            self._warn(f"Semantic search failed for this query ({exc}); keyword search goes on.")
            return {}, {}
        near: dict[str, list[int]] = {}
        similarity: dict[str, float] = {}
        for chunk_id, score in nearest:
            row = self._conn.execute(_FILE_OF, (chunk_id,)).fetchone()
            if row is not None:
                near.setdefault(row[0], []).append(chunk_id)
                similarity.setdefault(row[0], score)
        return near, similarity

    def _passages_in(self, path: str, within: str, near: list[int], per_file: int) -> list[Passage]:
        """A file's best passages: BM25's and the nearest, alternately, each once."""
        lexical = []
        if within:
            lexical = self._conn.execute(_IN_FILE, (within, path, per_file)).fetchall()
        semantic = [self._conn.execute(_PASSAGE, (chunk_id,)).fetchone() for chunk_id in near]
        merged: dict[tuple[int, int], Passage] = {}
        for pair in itertools.zip_longest(lexical, semantic[:per_file]):
            for passage in pair:
                if passage is not None:
                    merged.setdefault((passage[1], passage[2]), passage)
        return list(merged.values())[:per_file]

    def _discriminating(self, words: list[str], names: set[str]) -> list[str]:
        """The words that tell files apart.

        A word found in half of the files or more ("python" across a folder of Python
        docs, "files" in every page footer) matches every candidate; left in, several of
        them outscore the one rare word that names the topic. A word in ``names`` (it names
        a page) stays however spread. Counting stops at half the files, so this stays
        cheap. When every word is that common, the less spread half of them is used:
        "create classes with automatically generated __init__ and __repr__" is all words of
        most pydoc pages, and with every word the pages whose generated-page notice says
        "automatically generated" came first, dataclasses' fourth of 82.
        """
        if len(words) < 2:
            return words
        files = self._conn.execute("SELECT count(DISTINCT file_id) FROM chunks").fetchone()[0]
        spread = {w: self._files_with(w, (files + 1) // 2) for w in words}
        found = [w for w in words if spread[w]]
        kept = [
            w for w in found if files < _FILE_SPREAD_FROM or 2 * spread[w] < files or w in names
        ]
        if kept or len(found) < 2:
            return kept or found or words
        spread = {w: self._files_with(w, files) for w in found}
        least = sorted(found, key=lambda w: spread[w])[: -(-len(found) // 2)]
        return [w for w in found if w in least]

    def _named_by(self, word: str) -> list[str]:
        """The pages whose title holds ``word``, when there are at most ``_TITLE_FILES``:
        what those pages are about, however many others mention it ("pickle" in every
        pydoc page's "Helper for pickle")."""
        titled = fts_query([word]).replace('"', '{title} : "', 1)
        rows = self._conn.execute(_TITLED_FILES, (titled, _TITLE_FILES + 1)).fetchall()
        return [path for (path,) in rows] if len(rows) <= _TITLE_FILES else []

    def _drop_frequent(self, words: list[str]) -> list[str]:
        """On a big index, leave out words found in a third of the passages: they barely
        move BM25, yet scoring every passage they match is what makes a query slow.
        Counting stops at the threshold."""
        if len(words) < 2:
            return words
        passages = self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if passages < _PRUNE_FROM:
            return words
        limit = passages // _COMMON_FRACTION
        kept = [
            w
            for w in words
            if self._conn.execute(_COUNT_MATCHES, (fts_query([w]), limit)).fetchone()[0] < limit
        ]
        return kept or words

    def _files_with(self, word: str, limit: int) -> int:
        """In how many files ``word`` occurs, counting no further than ``limit``."""
        return int(self._conn.execute(_COUNT_FILES, (fts_query([word]), limit)).fetchone()[0])


def shingles(text: str, size: int = 3) -> set[tuple[str, ...]]:
    """The text's runs of ``size`` words, lower-cased, markup and punctuation ignored."""
    words = re.findall(r"[^\W_]+", text.lower())
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def repeats(passage: set[tuple[str, ...]], earlier: set[tuple[str, ...]]) -> bool:
    """Whether most of the shorter of two passages is in the other (0.6 of its shingles):
    passages of two files cut at different places, or with markup, still match."""
    smaller = min(len(passage), len(earlier))
    return smaller > 0 and len(passage & earlier) >= DUPLICATE_SHARE * smaller


def _result(path: str, passages: list[Passage], words: Sequence[str]) -> SearchResult:
    """One file's hit: its best passages in file order, each located."""
    title = passages[0][0]
    snippet = _snippet(passages[0][4], words)
    ordered = sorted(passages, key=lambda p: (p[3] or 0, p[1]))
    locations = [
        f"page {page}, chars {start}-{end}" if page else f"chars {start}-{end}"
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
    )


def _snippet(body: str, words: Sequence[str], width: int = 240) -> str:
    lowered = body.lower()
    hits = [i for i in (lowered.find(w) for w in words) if i >= 0]
    start = max(0, min(hits) - width // 4) if hits else 0
    piece = " ".join(body[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(body) else "")
