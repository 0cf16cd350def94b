"""Your own documents: a folder indexed into SQLite FTS5 and searched with BM25.

Documents are cut into passages of about 1,000 characters on paragraph boundaries, so a
result points into its file ("chars 1200-2400", or "page 3, chars ..." for a PDF). The
index is incremental: each file's mtime, size and hash are stored, and only new or changed
files are read again. A file that cannot be read is skipped with a warning, never a crash.
One index exists per set of document roots, under ``cache_dir()/indexes``.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ponder.errors import PonderError
from ponder.paths import cache_dir
from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.services.search.local.documents import (
    discover,
)
from ponder.services.search.local.embeddings import Embedder
from ponder.services.search.local.indexer import Indexer, IndexStats, deferred_interrupt
from ponder.services.search.local.vectors import EmbedStats, VectorStore, fuse
from ponder.services.text.words import STOPWORDS

Warn = Callable[[str], None]
Progress = Callable[[int, int], None]
Passage = tuple[str, int, int, int | None, str]  # title, start, end, page, text

SCHEMA_VERSION = 1
DUPLICATE_SHARE = 0.6  # of a passage's word triples found in a better-ranked one
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL, hash TEXT NOT NULL, title TEXT NOT NULL, skipped TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, start INTEGER NOT NULL,
    end INTEGER NOT NULL, page INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS passages
    USING fts5 (title, body, tokenize = 'porter unicode61 remove_diacritics 2');
"""
# The ranked subquery is materialised so only rowids and scores are sorted, not passages.
_QUERY = """
WITH top AS MATERIALIZED (
    SELECT rowid AS id, bm25(passages, 2.0, 1.0) AS score FROM passages
    WHERE passages MATCH ? ORDER BY score LIMIT ?
)
SELECT f.path, top.score FROM top JOIN chunks AS c ON c.id = top.id
JOIN files AS f ON f.id = c.file_id ORDER BY top.score
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
_FILE_OF = "SELECT f.path FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE c.id = ?"
_COUNT_MATCHES = "SELECT count(*) FROM (SELECT 1 FROM passages WHERE passages MATCH ? LIMIT ?)"
_COUNT_FILES = (
    "SELECT count(*) FROM (SELECT DISTINCT c.file_id FROM passages JOIN chunks AS c "
    "ON c.id = passages.rowid WHERE passages MATCH ? LIMIT ?)"
)
_COMMON_FRACTION = 3  # a word in more than 1/3 of passages barely moves BM25
_PRUNE_FROM = 2000  # passages; below this, every word is cheap enough to score
_FILE_SPREAD_FROM = 4  # files; in a smaller folder every word may matter


def _ignore(_: str) -> None:
    return None


@dataclass
class IndexStatus:
    """How an index compares with the files on disk (for ``ponder doctor``)."""

    db_path: Path
    indexed_files: int
    stale_files: int
    skipped_files: int
    passages: int
    embed_model: str | None = None  # the model the stored vectors come from
    embedded: int = 0  # passages with a vector


def resolve_roots(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Absolute, de-duplicated, sorted document roots."""
    return sorted({Path(p).expanduser().resolve() for p in paths})


def index_path(paths: Iterable[str | os.PathLike[str]]) -> Path:
    """The index database for this set of roots: one per set, keyed by their sorted paths."""
    key = "\n".join(str(p) for p in resolve_roots(paths))
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir() / "indexes" / f"{digest}.sqlite"


# -- the index ----------------------------------------------------------------------------

_INDEX_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _index_lock(db_path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _INDEX_LOCKS.setdefault(str(db_path), threading.Lock())


def query_words(text: str) -> list[str]:
    """Distinct lower-case words of a query, stopwords dropped unless nothing else is left."""
    words = list(dict.fromkeys(re.findall(r"\w+", text.lower())))
    return ([w for w in words if w not in STOPWORDS] or words)[:32]


def fts_query(words: Sequence[str]) -> str:
    """A safe FTS5 query: every word quoted (so no user text is FTS syntax), ORed."""
    return " OR ".join(f'"{w}"' for w in words)


class LocalIndex:
    """An FTS5 index over a set of document roots."""

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        db_path: Path | None = None,
        warn: Warn | None = None,
    ) -> None:
        self.roots = resolve_roots(paths)
        self._warn = warn or _ignore
        self._lock = threading.Lock()
        self.db_path = db_path or self._default_path()
        self._conn = self._connect()
        self.vectors = VectorStore(self._conn, self.db_path, self._warn)

    def _default_path(self) -> Path:
        try:
            return index_path(self.roots)
        except OSError as exc:  # cache_dir() could not be created
            self._warn(f"Cannot create the cache directory ({exc}); indexing in memory.")
            return Path(":memory:")

    def _connect(self) -> sqlite3.Connection:
        try:
            if str(self.db_path) != ":memory:":
                self.db_path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.db_path, timeout=30, check_same_thread=False)
            conn.executescript("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;" + _SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            self._warn(f"Cannot write the index at {self.db_path} ({exc}); indexing in memory.")
            self.db_path = Path(":memory:")
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(_SCHEMA)
        conn.execute(
            "INSERT OR IGNORE INTO meta VALUES ('roots', ?)", ("\n".join(map(str, self.roots)),)
        )
        conn.commit()
        return conn

    def close(self) -> None:
        self._conn.close()

    def index(
        self, progress: Progress | None = None, warn: Warn | None = None, workers: int | None = None
    ) -> IndexStats:
        """Bring the index up to date with the files on disk; only changed files are read.

        ``progress(done, total)`` is called as files are checked; ``warn`` gets one line per
        skipped file (the first ten, then a count). Files are read by up to ``workers``
        processes (default: one per core).
        """
        started = time.perf_counter()
        with _index_lock(self.db_path), self._lock:
            indexer = Indexer(self._conn, warn or self._warn, workers)
            stats = indexer.run(discover(self.roots, warn or self._warn), progress)
        stats.seconds = time.perf_counter() - started
        return stats

    def embed(self, embedder: Embedder, progress: Progress | None = None) -> EmbedStats:
        """Embed the passages that have no vector yet (all of them when the model changed),
        then write the search matrix. Ctrl-C keeps the batches already embedded."""
        with _index_lock(self.db_path), self._lock:
            stats = self.vectors.embed_pending(embedder, progress)
            with deferred_interrupt():
                self.vectors.refresh_matrix()
        return stats

    def status(self) -> IndexStatus:
        """Indexed, stale (new, changed or deleted) and skipped file counts."""
        found = discover(self.roots)
        with self._lock:
            rows = self._conn.execute("SELECT path, mtime_ns, size, skipped FROM files").fetchall()
            passages = self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            embedded = self._conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
            embed_model = self.vectors.model()
        known = {path: (mtime, size) for path, mtime, size, _ in rows}
        stale = sum(1 for path, sig in found.items() if known.get(path) != sig)
        stale += sum(1 for path in known if path not in found)
        skipped = sum(1 for *_, reason in rows if reason)
        return IndexStatus(
            self.db_path, len(rows) - skipped, stale, skipped, passages, embed_model, embedded
        )

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
        with self._lock:
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
        """Files in the order of their best BM25 passage, each with its score, higher better
        (caller holds the lock)."""
        best: dict[str, float] = {}
        if words:
            rows = self._conn.execute(_QUERY, (fts_query(self._discriminating(words)), limit))
            for path, score in rows:
                best.setdefault(path, -score)  # FTS5's bm25() is negative, lower better
        return best

    def _nearest_by_file(
        self, vector: list[float] | None, model: str | None, limit: int
    ) -> tuple[dict[str, list[int]], dict[str, float]]:
        """Files in the order of their nearest passage, each with its near passages' ids,
        nearest first, and with its nearest passage's similarity (caller holds the lock).
        Vector trouble leaves keyword search be."""
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

    def _discriminating(self, words: list[str]) -> list[str]:
        """The words that tell files apart (caller holds the lock).

        A word found in half of the files or more ("python" across a folder of Python
        docs, "files" in every page footer) matches every candidate; left in, several of
        them outscore the one rare word that names the topic. Counting stops at half the
        files, so this stays cheap. When no word is left, the words that occur at all are
        used.
        """
        if len(words) < 2:
            return words
        files = self._conn.execute("SELECT count(DISTINCT file_id) FROM chunks").fetchone()[0]
        spread = {w: self._files_with(w, (files + 1) // 2) for w in words}
        found = [w for w in words if spread[w]]
        kept = [w for w in found if files < _FILE_SPREAD_FROM or 2 * spread[w] < files]
        return kept or found or words

    def _drop_frequent(self, words: list[str]) -> list[str]:
        """On a big index, leave out words found in a third of the passages (caller holds
        the lock): they barely move BM25, yet scoring every passage they match is what
        makes a query slow. Counting stops at the threshold."""
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


# -- public entry points ------------------------------------------------------------------


def index(
    paths: Iterable[str | os.PathLike[str]],
    progress: Progress | None = None,
    warn: Warn | None = None,
) -> IndexStats:
    """Index (or refresh) the documents under ``paths``; what ``ponder index PATH`` runs."""
    local = LocalIndex(paths, warn=warn)
    try:
        return local.index(progress)
    finally:
        local.close()


def embed(
    paths: Iterable[str | os.PathLike[str]],
    embedder: Embedder,
    progress: Progress | None = None,
    warn: Warn | None = None,
) -> EmbedStats:
    """Embed the indexed passages under ``paths`` that have no vector yet (``ponder index
    --embed-model``). Raises ModelNotFoundError, OllamaUnavailableError or ModelCallError;
    the batches embedded before a failure are kept."""
    local = LocalIndex(paths, warn=warn)
    try:
        return local.embed(embedder, progress)
    finally:
        local.close()


def index_status(paths: Iterable[str | os.PathLike[str]]) -> IndexStatus:
    """How the index for ``paths`` compares with the files on disk (for ``ponder doctor``)."""
    local = LocalIndex(paths)
    try:
        return local.status()
    finally:
        local.close()


class LocalSearch:
    """The ``local`` search backend: indexes on first use, then refreshes at most every
    ``refresh_seconds`` so edits made during a long session are picked up.

    With an ``embedder`` (semantic search on), each refresh embeds the new passages and each
    query is embedded too. If embedding fails (the model is not pulled, Ollama is away),
    one warning says why and this backend goes on with BM25 alone.
    """

    name = "local"
    _last_refresh: ClassVar[dict[str, float]] = {}  # shared across instances in this process

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        warn: Warn | None = None,
        db_path: Path | None = None,
        refresh_seconds: float = 60.0,
        embedder: Embedder | None = None,
    ) -> None:
        self.index = LocalIndex(paths, db_path=db_path, warn=warn)
        self.refresh_seconds = refresh_seconds
        self.embedder = embedder
        self._warn = warn or _ignore
        self._refresh_lock = asyncio.Lock()
        self._own_refresh: float | None = None
        self._embedded = False  # this instance brought the vectors up to date since its refresh

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            await self._refresh()
            vector = await self._embed_query(query)
            model = self.embedder.model if self.embedder else None
            return await asyncio.to_thread(
                self.index.search, query, max_results, query_vector=vector, embed_model=model
            )
        except sqlite3.Error as exc:  # a corrupt or locked index is a backend failure
            raise SearchBackendError(f"local index {self.index.db_path} failed: {exc}") from exc

    async def _embed_query(self, query: str) -> list[float] | None:
        if self.embedder is None:
            return None
        try:
            return await asyncio.to_thread(self.embedder.query, query)
        except PonderError as exc:
            self._semantic_off(exc)
            return None

    def _semantic_off(self, problem: Exception) -> None:
        self.embedder = None
        self._warn(f"Semantic search is off for this run, keyword search goes on: {problem}")

    async def _refresh(self) -> None:
        key = str(self.index.db_path)
        async with self._refresh_lock:
            # An on-disk index is shared by every instance in the process; one in memory is not.
            last = self._own_refresh if key == ":memory:" else self._last_refresh.get(key)
            if last is None or time.monotonic() - last >= self.refresh_seconds:
                await asyncio.to_thread(self.index.index)
                self._own_refresh = time.monotonic()
                if key != ":memory:":
                    self._last_refresh[key] = self._own_refresh
                self._embedded = False
            if self.embedder is not None and not self._embedded:
                # Even when another instance refreshed the text: it may not embed.
                try:
                    await asyncio.to_thread(self.index.embed, self.embedder)
                    self._embedded = True
                except (PonderError, OSError, sqlite3.Error) as exc:
                    self._semantic_off(exc)
