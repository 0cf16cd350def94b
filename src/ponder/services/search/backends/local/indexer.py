"""One incremental indexing pass: read new or changed files, cut passages, write FTS5 rows.

Only files whose mtime or size changed are read; a file whose content hash is unchanged is
only re-stamped. Unreadable, oversized, hostile and unknown files are skipped, each with its
reason (the first few as warnings, all of them in the stats; unknown types counted by
suffix).
Files are read by :mod:`.reading` (in worker processes when that pays); every SQLite
write stays in the calling thread. Work is committed in batches, so an interrupted run
keeps what it indexed and the next run goes on from there.
"""

from __future__ import annotations

import bisect
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.search.backends.local.files import Found
from ponder.services.search.backends.local.reading import Extracted, Job, extracted, pool_size
from ponder.services.search.backends.local.scope import Scope

Warn = Callable[[str], None]
Progress = Callable[[int, int], None]
Stop = Callable[[], bool]


class IndexStopped(Exception):
    """Indexing was asked to stop (a server shutting down); what was indexed is kept."""


_MAX_WARNINGS = 10  # per indexing run; the rest are summed up in one line
MAX_FILE_BYTES = 64 * 1024 * 1024  # larger files are skipped: read whole, they would fill memory
_BATCH = 2000  # files per transaction: a crash loses at most one batch of work


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
    workers: int = 1
    # Each file skipped (by this run or before, unchanged since), with why; files of unknown
    # types, counted by suffix;
    # hidden entries and links out of the folder left out (docs_hidden_and_symlinks).
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    unknown_types: dict[str, int] = field(default_factory=dict)
    left_out: int = 0  # hidden entries


@contextmanager
def deferred_interrupt() -> Iterator[Callable[[], bool]]:
    """Ctrl-C (SIGINT) is noted rather than raised at once; yields "was it pressed?".

    Signal handlers belong to the main thread; elsewhere (a search indexing in a worker
    thread) nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    pressed = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: pressed.set())
    try:
        yield pressed.is_set
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed.is_set():  # pressed after the last file: still an interruption
        raise KeyboardInterrupt


class Indexer:
    """One incremental indexing pass over a connection (caller holds the locks)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        warn: Warn,
        workers: int | None = None,
        bounds: tuple[str, ...] | None = None,
    ) -> None:
        self.conn = conn
        self.warn = warn
        self.workers = workers  # None: one per core when there is enough to read
        self.bounds = bounds  # where an opened file must lie (None: anywhere)
        self.stats = IndexStats()
        self.stored = 0  # files read and stored by this run
        self.newly_skipped = 0  # of those, the files skipped (each warned about, up to ten)
        self.next_chunk = (conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0) + 1
        self.chunk_rows: list[tuple[int, int, int, int, int | None]] = []
        self.fts_rows: list[tuple[int, str, str]] = []

    def run(
        self,
        discovered: Found,
        progress: Progress | None,
        scope: Scope | None = None,
        stop: Stop | None = None,
    ) -> IndexStats:
        """Bring the index in line with the files ``discovered``: those of the whole index,
        or of the ``scope`` they were found in (files outside it are neither read nor
        forgotten)."""
        found = discovered.files
        self._left_out(discovered)
        known = {
            row[0]: row[1:]
            for row in self.conn.execute("SELECT path, id, mtime_ns, size, hash FROM files")
        }
        if scope is not None:
            known = {path: row for path, row in known.items() if scope.contains(path)}
        self.stats.files = total = len(found)
        for path in [p for p in known if p not in found]:
            self._forget(known[path][0])
            self.conn.execute("DELETE FROM files WHERE id = ?", (known[path][0],))
            self.stats.removed += 1
        jobs = []
        for path, signature in sorted(found.items()):
            previous = known.get(path)
            if previous is not None and tuple(previous[1:3]) == signature:
                self.stats.unchanged += 1
            else:
                known_hash = previous[3] if previous else None
                refused = discovered.refused.get(path)
                jobs.append(Job(path, signature, known_hash, MAX_FILE_BYTES, self.bounds, refused))
        self.stats.workers = pool_size(jobs, self.workers)
        results = extracted(jobs, self.stats.workers)
        try:
            self._store_all(results, known, total, progress, stop)
        except BrokenProcessPool:  # a file crashed the reader's process outright
            left = len(jobs) - self.stored
            self.warn(
                f"A process reading your documents died (a file crashed its reader); "
                f"{left} file(s) were not indexed this time. What was indexed is kept."
            )
        finally:  # also on Ctrl-C: what was indexed is kept, the rest is read next time
            results.close()  # stops the pool now, not when the traceback is collected
            self._flush()
            self.conn.commit()
        if self.newly_skipped > _MAX_WARNINGS:
            self.warn(f"…and {self.newly_skipped - _MAX_WARNINGS} more files skipped.")
        self._all_skipped(scope)
        return self.stats

    def _all_skipped(self, scope: Scope | None) -> None:
        """Every file of the index (or scope) that stays skipped, the earlier ones too: a
        file skipped once is not read (or warned about) again until it changes."""
        where, params = scope.where("path") if scope else ("1", ())
        rows = self.conn.execute(
            f"SELECT path, skipped FROM files WHERE skipped IS NOT NULL AND {where} ORDER BY path",
            params,
        ).fetchall()
        self.stats.skipped_files = [(path, reason) for path, reason in rows]
        self.stats.skipped = len(rows)

    def _left_out(self, discovered: Found) -> None:
        """What discovery did not take, counted (``ponder index`` and doctor show it)."""
        self.stats.unknown_types = dict(discovered.unknown.most_common())
        self.stats.left_out = discovered.left_out

    def _store_all(
        self,
        results: Iterable[Extracted],
        known: dict[str, tuple[int, int, int, str]],
        total: int,
        progress: Progress | None,
        stop: Stop | None = None,
    ) -> None:
        if progress:
            progress(self.stats.unchanged, total)
        with deferred_interrupt() as interrupted:
            for done, result in enumerate(results, start=self.stats.unchanged + 1):
                if interrupted():  # between two files, so none is half stored
                    raise KeyboardInterrupt
                if stop is not None and stop():
                    raise IndexStopped
                self._store(result, known.get(result.job.path))
                self.stored += 1
                if done % _BATCH == 0:
                    self._flush()
                    self.conn.commit()
                if progress:
                    progress(done, total)

    def _store(self, result: Extracted, previous: tuple[int, int, int, str] | None) -> None:
        job = result.job
        if result.skipped is not None:
            # Stored with an impossible signature when unreadable, so the next run tries again.
            signature = (-1, -1) if result.retry else job.signature
            self._skip(job.path, signature, result.digest, result.skipped, previous)
            return
        if result.same_content and previous is not None:
            self.conn.execute(
                "UPDATE files SET mtime_ns = ?, size = ? WHERE id = ?",
                (*job.signature, previous[0]),
            )
            self.stats.unchanged += 1
            return
        chunks = [
            (start, end, bisect.bisect_right(result.page_starts, start) or None)
            for start, end in result.spans
        ]
        if previous is not None and self._same_passages(previous[0], result.text, chunks):
            # New bytes, same text (a file re-saved, or read again by newer readers): its
            # passages, and the vectors embedded from them, are kept.
            self._describe(previous[0], job.signature, result)
            self.stats.unchanged += 1
            return
        file_id = self._upsert(job.path, job.signature, result.digest, result.title, None, previous)
        self.conn.execute(
            "UPDATE files SET authors = ?, date = ?, part = ? WHERE id = ?",
            ("\n".join(result.authors) or None, result.date, result.part, file_id),
        )
        for start, end, page in chunks:
            self.chunk_rows.append((self.next_chunk, file_id, start, end, page))
            self.fts_rows.append((self.next_chunk, result.title, result.text[start:end]))
            self.next_chunk += 1
        self.stats.indexed += 1
        if len(self.chunk_rows) >= 5000:
            self._flush()

    def _same_passages(
        self, file_id: int, text: str, chunks: list[tuple[int, int, int | None]]
    ) -> bool:
        stored = self.conn.execute(
            "SELECT c.start, c.end, c.page, p.body FROM chunks AS c JOIN passages AS p "
            "ON p.rowid = c.id WHERE c.file_id = ? ORDER BY c.start",
            (file_id,),
        ).fetchall()
        return bool(stored) and stored == [(s, e, page, text[s:e]) for s, e, page in chunks]

    def _describe(self, file_id: int, signature: tuple[int, int], result: Extracted) -> None:
        """A file whose passages stay: what its reader found besides its text (its hash,
        title, authors, date, what its parts are); its passages carry the title too."""
        self.conn.execute(
            "UPDATE files SET mtime_ns = ?, size = ?, hash = ?, title = ?, skipped = NULL, "
            "authors = ?, date = ?, part = ? WHERE id = ?",
            (
                *signature,
                result.digest,
                result.title,
                "\n".join(result.authors) or None,
                result.date,
                result.part,
                file_id,
            ),
        )
        self.conn.execute(
            "UPDATE passages SET title = ? WHERE rowid IN "
            "(SELECT id FROM chunks WHERE file_id = ?) AND title != ?",
            (result.title, file_id, result.title),
        )

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
        self.newly_skipped += 1
        if self.newly_skipped <= _MAX_WARNINGS:
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
