"""Your own documents: a folder indexed into SQLite FTS5, with vectors when asked.

Documents are cut into passages of about 1,000 characters on paragraph boundaries, so a
result points into its file ("chars 1200-2400", or "page 3, chars ..." for a PDF). The
index is incremental: each file's mtime, size and hash are stored, and only new or changed
files are read again (:mod:`.indexer`). A file that cannot be read is skipped with a
warning, never a crash. An index lives in the cache folder's ``indexes/`` (or a folder shared
by replicas, :mod:`.shared`), keyed by its folder;
:mod:`.indexes` picks the one that serves a set of roots (a sub-folder is a ``scope`` of
its folder's index, refreshed and searched alone), and :mod:`.ranking` answers its queries.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.search.backends.local.embeddings import Embedder
from ponder.services.search.backends.local.files import Found, discover
from ponder.services.search.backends.local.indexer import (
    Indexer,
    IndexStats,
    Stop,
    deferred_interrupt,
)
from ponder.services.search.backends.local.ranking import Ranking, Warn
from ponder.services.search.backends.local.results import search
from ponder.services.search.backends.local.scope import scope_within
from ponder.services.search.backends.local.shared import (
    IndexReadOnlyError,
    journal_mode,
    open_for_reading,
)
from ponder.services.search.backends.local.vectors import SCHEMA as VECTORS_SCHEMA
from ponder.services.search.backends.local.vectors import EmbedStats, VectorStore
from ponder.services.search.base import SearchResult
from ponder.settings.paths import IndexRole, ensure

Progress = Callable[[int, int], None]

# What the readers make of a file changed (new formats, metadata kept): an index written
# by older readers reads every file again once, then goes on incrementally.
READERS_VERSION = "2"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL, hash TEXT NOT NULL, title TEXT NOT NULL, skipped TEXT,
    authors TEXT, date TEXT, part TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, start INTEGER NOT NULL,
    end INTEGER NOT NULL, page INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS passages
    USING fts5 (title, body, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT OR IGNORE INTO meta VALUES ('files_version', '0');
CREATE TRIGGER IF NOT EXISTS file_added AFTER INSERT ON files
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'files_version'; END;
CREATE TRIGGER IF NOT EXISTS file_gone AFTER DELETE ON files
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'files_version'; END;
CREATE TRIGGER IF NOT EXISTS file_renamed AFTER UPDATE OF path, skipped ON files
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'files_version'; END;
"""
_PASSAGES = "SELECT count(*) FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE {where}"
_EMBEDDED = (
    "SELECT count(*) FROM vectors AS v JOIN chunks AS c ON c.id = v.chunk_id "
    "JOIN files AS f ON f.id = c.file_id WHERE {where}"
)


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
    skipped: list[tuple[str, str]] = field(default_factory=list)  # each with its reason
    unknown_types: dict[str, int] = field(default_factory=dict)  # suffix → files
    fresh: list[str] = field(default_factory=list)  # files indexed as they are on disk now


def resolve_roots(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Absolute, de-duplicated, sorted document roots."""
    return sorted({Path(p).expanduser().resolve() for p in paths})


def index_path(paths: Iterable[str | os.PathLike[str]], cache_dir: Path) -> Path:
    """The index database of these roots in the cache folder ``cache_dir`` (created here),
    keyed by their sorted paths (one folder, as :mod:`.indexes` uses it)."""
    key = "\n".join(str(p) for p in resolve_roots(paths))
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return ensure(cache_dir) / "indexes" / f"{digest}.sqlite"


# -- the index ----------------------------------------------------------------------------

_INDEX_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _index_lock(db_path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _INDEX_LOCKS.setdefault(str(db_path), threading.Lock())


class LocalIndex:
    """An FTS5 index over a folder (or any set of document roots), or over the part of it
    that ``scope`` names: its sub-folders or files, the only ones refreshed and searched.

    ``hidden``: also index hidden files and folders and symlinks that lead out of the
    folder (the operator's ``docs_hidden_and_symlinks``; :func:`.files.discover`).
    ``role``: this machine's own index, the indexer of a shared one, or its reader, which
    never writes it (:mod:`.shared`).
    """

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        cache_dir: Path | None = None,
        db_path: Path | None = None,
        warn: Warn | None = None,
        scope: Iterable[str | os.PathLike[str]] | None = None,
        hidden: bool = False,
        role: IndexRole = "own",
    ) -> None:
        if db_path is None and cache_dir is None:
            raise TypeError("LocalIndex needs the cache folder (cache_dir) or a db_path")
        self.roots = resolve_roots(paths)
        self.scope = scope_within(self.roots, resolve_roots(scope or []), not hidden)
        self.hidden = hidden
        self.role = role
        self._warn = warn or _ignore
        self._lock = threading.Lock()
        self.db_path = db_path or self._default_path(cache_dir)
        self._conn = self._connect()
        self.vectors = VectorStore(self._conn, self.db_path, self._warn, self.readonly)
        self.ranking = Ranking(self._conn, self.vectors, self._warn, self.scope)
        self.lock = self._lock  # held by a search over several indexes (.indexes)

    def _default_path(self, cache_dir: Path | None) -> Path:
        assert cache_dir is not None
        try:
            return index_path(self.roots, cache_dir)
        except OSError as exc:  # the cache folder could not be created
            self._warn(f"Cannot create the cache directory ({_reason(exc)}); indexing in memory.")
            return Path(":memory:")

    @property
    def readonly(self) -> bool:
        return self.role == "reader"

    def _connect(self) -> sqlite3.Connection:
        if self.readonly:
            return self._connect_reader()
        try:
            if str(self.db_path) != ":memory:":
                self.db_path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.db_path, timeout=30, check_same_thread=False)
            journal = journal_mode(self.role)
            conn.executescript(f"PRAGMA journal_mode={journal}; PRAGMA synchronous=NORMAL;")
            conn.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            # No path in the message: a served caller sees warnings (the operator's log has it).
            self._warn(f"Cannot write the document index ({_reason(exc)}); indexing in memory.")
            self.db_path = Path(":memory:")
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(_SCHEMA)
        conn.execute(
            "INSERT OR IGNORE INTO meta VALUES ('roots', ?)", ("\n".join(map(str, self.roots)),)
        )
        _upgrade(conn)
        conn.commit()
        return conn

    def _connect_reader(self) -> sqlite3.Connection:
        """The shared index, read-only; an empty one in memory when it cannot be read."""
        conn = open_for_reading(self.db_path, self._warn)
        if conn is None:
            self.db_path = Path(":memory:")
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(_SCHEMA + VECTORS_SCHEMA)
            _upgrade(conn)
        return conn

    def close(self) -> None:
        self._conn.close()

    def index(
        self,
        progress: Progress | None = None,
        warn: Warn | None = None,
        workers: int | None = None,
        stop: Stop | None = None,
    ) -> IndexStats:
        """Bring the index up to date with the files on disk; only changed files are read.

        ``progress(done, total)`` is called as files are checked; ``warn`` gets one line per
        skipped file (the first ten, then a count). Files are read by up to ``workers``
        processes (default: one per core). ``stop()``, asked between files, ends it early
        (IndexStopped), keeping what was indexed.
        """
        if self.readonly:
            raise IndexReadOnlyError()
        started = time.perf_counter()
        with _index_lock(self.db_path), self._lock:
            indexer = Indexer(self._conn, warn or self._warn, workers, self._bounds())
            stats = indexer.run(self._discover(warn or self._warn), progress, self.scope, stop)
        stats.seconds = time.perf_counter() - started
        return stats

    def embed(self, embedder: Embedder, progress: Progress | None = None) -> EmbedStats:
        """Embed the passages that have no vector yet (all of them when the model changed),
        then write the search matrix. Ctrl-C keeps the batches already embedded."""
        if self.readonly:
            raise IndexReadOnlyError()
        with _index_lock(self.db_path), self._lock:
            stats = self.vectors.embed_pending(embedder, progress)
            with deferred_interrupt():
                self.vectors.refresh_matrix()
        return stats

    def _discover(self, warn: Warn = _ignore) -> Found:
        wanted = [Path(p) for p in self.scope.paths] if self.scope else self.roots
        return discover(wanted, warn, hidden=self.hidden, folders=self.roots)

    def _bounds(self) -> tuple[str, ...] | None:
        """Where a file opened for indexing must lie: in the index's folders. A part of it
        (a ``scope``) is narrower still when searched (:meth:`.scope.Scope.admits`)."""
        return None if self.hidden else tuple(str(p) for p in self.roots)

    def status(self) -> IndexStatus:
        """Indexed, stale (new, changed or deleted) and skipped files, and what is left out."""
        discovered = self._discover()
        found = discovered.files
        where, params = self.scope.where() if self.scope else ("1", ())
        with self._lock:
            rows = self._conn.execute(
                f"SELECT path, mtime_ns, size, skipped FROM files AS f WHERE {where}", params
            ).fetchall()
            passages = self._conn.execute(_PASSAGES.format(where=where), params).fetchone()[0]
            embedded = self._conn.execute(_EMBEDDED.format(where=where), params).fetchone()[0]
            embed_model = self.vectors.model()
        known = {path: (mtime, size) for path, mtime, size, _ in rows}
        stale = sum(1 for path, sig in found.items() if known.get(path) != sig)
        stale += sum(1 for path in known if path not in found)
        skipped = sorted((path, reason) for path, *_, reason in rows if reason)
        left = {path for path, _ in skipped}
        fresh = sorted(p for p, sig in found.items() if known.get(p) == sig and p not in left)
        return IndexStatus(
            self.db_path,
            len(rows) - len(skipped),
            stale,
            len(skipped),
            passages,
            embed_model,
            embedded,
            skipped,
            dict(discovered.unknown.most_common()),
            fresh,
        )

    def search(
        self,
        query: str,
        max_results: int,
        per_file: int = 2,
        query_vector: list[float] | None = None,
        embed_model: str | None = None,
    ) -> list[SearchResult]:
        """The ``max_results`` best files, one result each with its ``per_file`` best
        passages (:func:`.results.search` says how they are chosen)."""
        with self._lock:
            return search([self.ranking], query, max_results, per_file, query_vector, embed_model)


def _upgrade(conn: sqlite3.Connection) -> None:
    """An index of older readers: the metadata columns added, every file to be read again."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(files)")}
    for column in ("authors", "date", "part"):
        if column not in columns:
            conn.execute(f"ALTER TABLE files ADD COLUMN {column} TEXT")
    row = conn.execute("SELECT value FROM meta WHERE key = 'readers'").fetchone()
    if row is None or row[0] != READERS_VERSION:
        conn.execute("UPDATE files SET mtime_ns = -1, hash = ''")  # read again, not trusted
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('readers', ?)", (READERS_VERSION,))


def _reason(exc: BaseException) -> str:
    """An OSError's reason without its file name (sqlite3's errors name none)."""
    return str(exc.strerror) if isinstance(exc, OSError) and exc.strerror else str(exc)
