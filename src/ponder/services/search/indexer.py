"""One incremental indexing pass: read new or changed files, cut passages, write FTS5 rows.

Only files whose mtime or size changed are read; a file whose content hash is unchanged is
only re-stamped. Unreadable, oversized and unsupported files are skipped with a warning.
"""

from __future__ import annotations

import bisect
import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ponder.services.reader import chunk_text
from ponder.services.search.documents import SkipFile, read_document

Warn = Callable[[str], None]
Progress = Callable[[int, int], None]

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


class Indexer:
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
