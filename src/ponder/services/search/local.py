"""Your own documents: a folder indexed into SQLite FTS5 and searched with BM25.

Documents are cut into passages of about 1,000 characters on paragraph boundaries, so a
result points into its file ("chars 1200-2400", or "page 3, chars ..." for a PDF). The
index is incremental: each file's mtime, size and hash are stored, and only new or changed
files are read again. A file that cannot be read is skipped with a warning, never a crash.
One index exists per set of document roots, under ``cache_dir()/indexes``.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ponder.paths import cache_dir
from ponder.services.reader import STOPWORDS, chunk_text, html_title, html_to_text, pdf_pages
from ponder.services.search.base import SearchBackendError, SearchResult

Warn = Callable[[str], None]
Progress = Callable[[int, int], None]

SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf"})
SCHEMA_VERSION = 1
_MAX_WARNINGS = 10  # per indexing run; the rest are summed up in one line
MAX_FILE_BYTES = 64 * 1024 * 1024  # larger files are skipped: read whole, they would fill memory
_BATCH = 2000  # files per transaction: a crash loses at most one batch of work
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
SELECT f.path, f.title, c.start, c.end, c.page, p.body
FROM top
JOIN chunks AS c ON c.id = top.id
JOIN files AS f ON f.id = c.file_id
JOIN passages AS p ON p.rowid = top.id
ORDER BY top.score
"""
_COMMON_FRACTION = 3  # a word in more than 1/3 of passages barely moves BM25
_PRUNE_FROM = 2000  # passages; below this, every word is cheap enough to score


def _ignore(_: str) -> None:
    return None


@dataclass
class IndexStats:
    """What one indexing run did."""

    files: int = 0
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    passages: int = 0
    seconds: float = 0.0


@dataclass
class IndexStatus:
    """How an index compares with the files on disk (for ``ponder doctor``)."""

    db_path: Path
    indexed_files: int
    stale_files: int
    skipped_files: int
    passages: int


@dataclass
class Document:
    title: str
    text: str
    page_starts: list[int] = field(default_factory=list)


class SkipFile(Exception):
    """A file that cannot be indexed; the message says why."""


# -- finding and reading files ------------------------------------------------------------


def resolve_roots(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Absolute, de-duplicated, sorted document roots."""
    return sorted({Path(p).expanduser().resolve() for p in paths})


def index_path(paths: Iterable[str | os.PathLike[str]]) -> Path:
    """The index database for this set of roots: one per set, keyed by their sorted paths."""
    key = "\n".join(str(p) for p in resolve_roots(paths))
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir() / "indexes" / f"{digest}.sqlite"


def discover(roots: Sequence[Path], warn: Warn = _ignore) -> dict[str, tuple[int, int]]:
    """Every supported file under the roots, with (mtime_ns, size). Hidden entries skipped."""
    found: dict[str, tuple[int, int]] = {}
    for root in roots:
        if root.is_file():
            if root.suffix.lower() not in SUFFIXES:
                warn(f"Skipped {root}: unsupported file type (use {', '.join(sorted(SUFFIXES))}).")
            else:
                _add(found, str(root))
            continue
        if not root.is_dir():
            warn(f"Document path {root} does not exist.")
            continue
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in names:
                if not name.startswith(".") and os.path.splitext(name)[1].lower() in SUFFIXES:
                    _add(found, os.path.join(folder, name))
    return found


def _add(found: dict[str, tuple[int, int]], path: str) -> None:
    try:
        info = os.stat(path)
    except OSError:
        return
    found[path] = (info.st_mtime_ns, info.st_size)


def read_document(path: Path, data: bytes) -> Document:
    """Extract a document's title and text; SkipFile when it cannot be read as text."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _read_pdf(path, data)
    if b"\x00" in data[:8192]:
        raise SkipFile("binary content")
    text = _decode(data, html=suffix in (".html", ".htm"))
    if suffix in (".html", ".htm"):
        return Document(html_title(text) or path.stem, html_to_text(text))
    return Document(_text_title(text, suffix) or path.stem, text)


def _read_pdf(path: Path, data: bytes) -> Document:
    try:
        pages = pdf_pages(data)
    except ValueError as exc:
        raise SkipFile(str(exc)) from None
    starts, parts, offset = [], [], 0
    for page in pages:
        starts.append(offset)
        parts.append(page)
        offset += len(page) + 2
    text = "\n\n".join(parts)
    if not text.strip():
        raise SkipFile("the PDF has no extractable text (scanned images?)")
    return Document(path.stem, text, starts)


def _decode(data: bytes, html: bool) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declared = re.search(rb"charset=[\"']?([\w-]+)", data[:4096]) if html else None
    if declared:
        try:
            return data.decode(declared.group(1).decode())
        except (LookupError, UnicodeDecodeError):
            pass
    raise SkipFile("not UTF-8 text")


def _text_title(text: str, suffix: str) -> str | None:
    lines = text.lstrip().splitlines()[:40]
    for i, line in enumerate(lines):
        if suffix in (".md", ".markdown") and line.startswith("# "):
            return line[2:].strip() or None
        underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
        is_heading = len(set(underline)) == 1 and underline[0] in "=-#*~^"
        if suffix == ".rst" and line.strip() and is_heading:
            return line.strip()
    return None


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

    def index(self, progress: Progress | None = None, warn: Warn | None = None) -> IndexStats:
        """Bring the index up to date with the files on disk; only changed files are read.

        ``progress(done, total)`` is called as files are checked; ``warn`` gets one line per
        skipped file (the first ten, then a count).
        """
        started = time.perf_counter()
        with _index_lock(self.db_path), self._lock:
            indexer = _Indexer(self._conn, warn or self._warn)
            stats = indexer.run(discover(self.roots, warn or self._warn), progress)
        stats.seconds = time.perf_counter() - started
        return stats

    def status(self) -> IndexStatus:
        """Indexed, stale (new, changed or deleted) and skipped file counts."""
        found = discover(self.roots)
        with self._lock:
            rows = self._conn.execute("SELECT path, mtime_ns, size, skipped FROM files").fetchall()
            passages = self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        known = {path: (mtime, size) for path, mtime, size, _ in rows}
        stale = sum(1 for path, sig in found.items() if known.get(path) != sig)
        stale += sum(1 for path in known if path not in found)
        skipped = sum(1 for *_, reason in rows if reason)
        return IndexStatus(self.db_path, len(rows) - skipped, stale, skipped, passages)

    def search(self, query: str, max_results: int, per_file: int = 2) -> list[SearchResult]:
        """Best passages by BM25 (title weighted double), at most ``per_file`` per file."""
        words = query_words(query)
        if not words or max_results <= 0:
            return []
        with self._lock:
            match = fts_query(self._drop_common(words))
            rows = self._conn.execute(_QUERY, (match, max_results * 4)).fetchall()
        results: list[SearchResult] = []
        per_path: dict[str, int] = {}
        for path, title, start, end, page, body in rows:
            if per_path.get(path, 0) >= per_file:
                continue
            per_path[path] = per_path.get(path, 0) + 1
            location = f"chars {start}-{end}"
            results.append(
                SearchResult(
                    title=title,
                    url=path,
                    snippet=_snippet(body, words),
                    content=body,
                    origin="local",
                    backend="local",
                    location=f"page {page}, {location}" if page else location,
                )
            )
            if len(results) >= max_results:
                break
        return results

    def _drop_common(self, words: list[str]) -> list[str]:
        """Leave out words found in a large share of passages (caller holds the lock).

        Their BM25 weight is near zero, yet scoring every passage they match is what makes
        a query slow on a big index. Counting stops at the threshold, so this stays cheap.
        """
        if len(words) < 2:
            return words
        total = self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if total < _PRUNE_FROM:
            return words
        limit = total // _COMMON_FRACTION
        counting = "SELECT count(*) FROM (SELECT 1 FROM passages WHERE passages MATCH ? LIMIT ?)"
        kept = [
            w
            for w in words
            if self._conn.execute(counting, (fts_query([w]), limit)).fetchone()[0] < limit
        ]
        return kept or words


def _snippet(body: str, words: Sequence[str], width: int = 240) -> str:
    lowered = body.lower()
    hits = [i for i in (lowered.find(w) for w in words) if i >= 0]
    start = max(0, min(hits) - width // 4) if hits else 0
    piece = " ".join(body[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(body) else "")


class _Indexer:
    """One incremental indexing pass over a connection (caller holds the locks)."""

    def __init__(self, conn: sqlite3.Connection, warn: Warn) -> None:
        self.conn = conn
        self.warn = warn
        self.stats = IndexStats()
        self.next_chunk = (conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0) + 1
        self.chunk_rows: list[tuple[int, int, int, int, int | None]] = []
        self.fts_rows: list[tuple[int, str, str]] = []

    def run(self, found: dict[str, tuple[int, int]], progress: Progress | None) -> IndexStats:
        known = {
            row[0]: row[1:]
            for row in self.conn.execute("SELECT path, id, mtime_ns, size, hash FROM files")
        }
        self.stats.files = len(found)
        for path in [p for p in known if p not in found]:
            self._forget(known[path][0])
            self.conn.execute("DELETE FROM files WHERE id = ?", (known[path][0],))
            self.stats.removed += 1
        total = len(found)
        for done, (path, signature) in enumerate(sorted(found.items()), start=1):
            previous = known.get(path)
            if previous is not None and tuple(previous[1:3]) == signature:
                self.stats.unchanged += 1
            else:
                self._update(path, signature, previous)
            if done % _BATCH == 0:
                self._flush()
                self.conn.commit()
            if progress and (done % 50 == 0 or done == total):
                progress(done, total)
        self._flush()
        self.conn.commit()
        if self.stats.skipped > _MAX_WARNINGS:
            self.warn(f"…and {self.stats.skipped - _MAX_WARNINGS} more files skipped.")
        return self.stats

    def _update(
        self, path: str, signature: tuple[int, int], previous: tuple[int, int, int, str] | None
    ) -> None:
        if signature[1] > MAX_FILE_BYTES:
            limit = MAX_FILE_BYTES // (1024 * 1024)
            self._skip(path, signature, "", f"larger than {limit} MB", previous)
            return
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            # Stored with an impossible signature so the next run tries again.
            reason = f"cannot read ({exc.strerror or exc})"
            self._skip(path, (-1, -1), "", reason, previous)
            return
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        if previous is not None and previous[3] == digest:  # touched, not changed
            self.conn.execute(
                "UPDATE files SET mtime_ns = ?, size = ? WHERE id = ?", (*signature, previous[0])
            )
            self.stats.unchanged += 1
            return
        try:
            document = read_document(Path(path), data)
        except SkipFile as exc:
            self._skip(path, signature, digest, str(exc), previous)
            return
        file_id = self._upsert(path, signature, digest, document.title, None, previous)
        for start, end in chunk_text(document.text):
            page = bisect.bisect_right(document.page_starts, start) or None
            self.chunk_rows.append((self.next_chunk, file_id, start, end, page))
            self.fts_rows.append((self.next_chunk, document.title, document.text[start:end]))
            self.next_chunk += 1
        self.stats.indexed += 1
        if len(self.chunk_rows) >= 5000:
            self._flush()

    def _skip(
        self,
        path: str,
        signature: tuple[int, int],
        digest: str,
        reason: str,
        previous: tuple[int, int, int, str] | None,
    ) -> None:
        # Remembered as skipped so an unchanged bad file is not re-read (or re-warned) later.
        self._upsert(path, signature, digest, Path(path).stem, reason, previous)
        self.stats.skipped += 1
        if self.stats.skipped <= _MAX_WARNINGS:
            self.warn(f"Skipped {path}: {reason}.")

    def _upsert(
        self,
        path: str,
        signature: tuple[int, int],
        digest: str,
        title: str,
        skipped: str | None,
        previous: tuple[int, int, int, str] | None,
    ) -> int:
        if previous is None:
            cursor = self.conn.execute(
                "INSERT INTO files (path, mtime_ns, size, hash, title, skipped)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (path, *signature, digest, title, skipped),
            )
            return int(cursor.lastrowid or 0)
        self._forget(previous[0])
        self.conn.execute(
            "UPDATE files SET mtime_ns = ?, size = ?, hash = ?, title = ?, skipped = ?"
            " WHERE id = ?",
            (*signature, digest, title, skipped, previous[0]),
        )
        return previous[0]

    def _forget(self, file_id: int) -> None:
        self._flush()  # pending rows of this file must exist before they can be deleted
        self.conn.execute(
            "DELETE FROM passages WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)",
            (file_id,),
        )
        self.conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))

    def _flush(self) -> None:
        if self.chunk_rows:
            self.conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?)", self.chunk_rows)
            self.conn.executemany(
                "INSERT INTO passages (rowid, title, body) VALUES (?, ?, ?)", self.fts_rows
            )
            self.stats.passages += len(self.chunk_rows)
            self.chunk_rows, self.fts_rows = [], []


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


def index_status(paths: Iterable[str | os.PathLike[str]]) -> IndexStatus:
    """How the index for ``paths`` compares with the files on disk (for ``ponder doctor``)."""
    local = LocalIndex(paths)
    try:
        return local.status()
    finally:
        local.close()


class LocalSearch:
    """The ``local`` search backend: indexes on first use, then refreshes at most every
    ``refresh_seconds`` so edits made during a long session are picked up."""

    name = "local"
    _last_refresh: ClassVar[dict[str, float]] = {}  # shared across instances in this process

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        warn: Warn | None = None,
        db_path: Path | None = None,
        refresh_seconds: float = 60.0,
    ) -> None:
        self.index = LocalIndex(paths, db_path=db_path, warn=warn)
        self.refresh_seconds = refresh_seconds
        self._refresh_lock = asyncio.Lock()
        self._own_refresh: float | None = None

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            await self._refresh()
            return await asyncio.to_thread(self.index.search, query, max_results)
        except sqlite3.Error as exc:  # a corrupt or locked index is a backend failure
            raise SearchBackendError(f"local index {self.index.db_path} failed: {exc}") from exc

    async def _refresh(self) -> None:
        key = str(self.index.db_path)
        async with self._refresh_lock:
            # An on-disk index is shared by every instance in the process; one in memory is not.
            last = self._own_refresh if key == ":memory:" else self._last_refresh.get(key)
            if last is not None and time.monotonic() - last < self.refresh_seconds:
                return
            await asyncio.to_thread(self.index.index)
            self._own_refresh = time.monotonic()
            if key != ":memory:":
                self._last_refresh[key] = self._own_refresh
