"""Passage vectors: stored in the index database, searched exactly in a memory-mapped matrix.

The ``vectors`` table (one unit-length float32 vector per passage) is the truth. It lives
in the index's SQLite file, and a trigger drops a passage's vector with the passage, so a
changed file is embedded again and an unchanged one never. A vector is stored only if its
passage still holds the text that was embedded (another process may have re-indexed it
meanwhile). Every change bumps ``vectors_version`` (triggers again: no code path forgets).

Search reads a float32 matrix written next to the database and memory-mapped: a query is
one matrix-vector product, faster than the sqlite-vec extension by several times at 100k
passages (docs/benchmarks.md) — and this Python's sqlite3 cannot load extensions.
The matrix is rebuilt from the table when its version falls behind; its file name carries
the database's own random id and the version, so it can only ever be read for its table.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ponder.core.errors import ModelCallError
from ponder.services.search.backends.local.embeddings import BATCH, Embedder, same_model
from ponder.services.search.backends.local.indexer import deferred_interrupt
from ponder.services.search.backends.local.matrix_files import (
    OPEN_LOCK,
    build_lock,
    matrix_paths,
    partial_path,
    remove_stale,
)

Progress = Callable[[int, int], None]
Warn = Callable[[str], None]

SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('vectors_version', '0');
INSERT OR IGNORE INTO meta VALUES ('vectors_id', lower(hex(randomblob(8))));
CREATE TRIGGER IF NOT EXISTS passage_gone AFTER DELETE ON chunks
    BEGIN DELETE FROM vectors WHERE chunk_id = old.id; END;
CREATE TRIGGER IF NOT EXISTS vector_added AFTER INSERT ON vectors
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'vectors_version'; END;
CREATE TRIGGER IF NOT EXISTS vector_gone AFTER DELETE ON vectors
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'vectors_version'; END;
"""
_PENDING = """
SELECT c.id, p.title, p.body FROM chunks AS c JOIN passages AS p ON p.rowid = c.id
WHERE c.id > ? AND c.id NOT IN (SELECT chunk_id FROM vectors) ORDER BY c.id LIMIT ?
"""
_COUNT_PENDING = "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)"
_ALL = """
SELECT c.id, p.title, p.body FROM chunks AS c JOIN passages AS p ON p.rowid = c.id
WHERE c.id > ? ORDER BY c.id LIMIT ?
"""
_COUNT_ALL = "SELECT count(*) FROM chunks"
# Only if the passage still holds the embedded text, and only once.
_INSERT = """
INSERT OR IGNORE INTO vectors (chunk_id, vector)
SELECT ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE rowid = ? AND body = ?)
"""


@dataclass
class EmbedStats:
    """What one embedding pass did."""

    model: str = ""
    embedded: int = 0
    total: int = 0  # passages in the index
    seconds: float = 0.0


class VectorStore:
    """The vectors of one index (caller holds the index's locks for every call)."""

    def __init__(
        self, conn: sqlite3.Connection, db_path: Path, warn: Warn, readonly: bool = False
    ) -> None:
        self.conn = conn
        self.db_path = db_path
        self._warn = warn
        self.readonly = readonly  # a reader of a shared index writes no matrix (.shared)
        if not readonly:
            conn.executescript(SCHEMA)
        self._matrix: Any = None  # numpy array (memory-mapped unless the index is in memory)
        self._ids: Any = None
        self._loaded: str | None = None  # the vectors_version of the matrix in hand

    # -- writing --------------------------------------------------------------------------

    def model(self) -> str | None:
        return self._get("embed_model")

    def embed_pending(self, embedder: Embedder, progress: Progress | None = None) -> EmbedStats:
        """Embed every passage that has no vector yet, a batch at a time, each committed:
        an interruption or a failure keeps what was embedded. Ctrl-C during a request stops
        at once (nothing of that batch is stored); during a write, right after it.

        Vectors of another model cannot be compared with this one's, so a new model starts
        again from the first passage — but the old vectors go only once the new model has
        answered: a misspelt or unpulled model name loses nothing.
        """
        import numpy as np

        started = time.perf_counter()
        switching = not same_model(self.model(), embedder.model)
        pending = self.conn.execute(_COUNT_ALL if switching else _COUNT_PENDING).fetchone()[0]
        stats = EmbedStats(model=embedder.model)
        after = 0
        if progress:
            progress(0, pending)
        while batch := self._next_batch(after, everything=switching):
            vectors = np.asarray(embedder.documents([(t, b) for _, t, b in batch]), np.float32)
            with deferred_interrupt():
                restart = self._store(batch, vectors, embedder.model, switching)
            switching = False
            after = 0 if restart else batch[-1][0]
            stats.embedded += len(batch)
            if restart:  # every passage again
                pending = stats.embedded + self.conn.execute(_COUNT_PENDING).fetchone()[0]
            if progress:
                progress(stats.embedded, pending)
        if switching:  # no passages at all: nothing to lose
            self._set("embed_model", embedder.model)
            self.conn.commit()
        stats.total = self.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        stats.seconds = time.perf_counter() - started
        return stats

    def _next_batch(self, after: int, everything: bool) -> list[tuple[int, str, str]]:
        query = _ALL if everything else _PENDING
        return self.conn.execute(query, (after, BATCH)).fetchall()

    def _store(
        self, batch: list[tuple[int, str, str]], vectors: Any, model: str, switching: bool
    ) -> bool:
        """Store one batch in one write transaction; True when the old vectors had another
        size (the model was replaced under its name) and were dropped."""
        dims = str(vectors.shape[1])
        if self.conn.in_transaction:
            self.conn.commit()
        self.conn.execute("BEGIN IMMEDIATE")  # check and write with no other writer between
        try:
            stored_model, stored_dims = self.model(), self._get("embed_dims")
            if not switching and not same_model(stored_model, model):
                raise ModelCallError(
                    f"another process is embedding this index with '{stored_model}'; "
                    "run again when it is done"
                )
            resized = not switching and stored_dims not in (None, dims)
            if switching or resized:
                self.conn.execute("DELETE FROM vectors")
                self._set("embed_model", model)
            rows = [
                (chunk_id, unit(vector).tobytes(), chunk_id, body)
                for (chunk_id, _, body), vector in zip(batch, vectors, strict=True)
            ]
            self.conn.executemany(_INSERT, rows)
            self._set("embed_dims", dims)
        except BaseException:
            self.conn.rollback()
            raise
        self.conn.commit()
        return resized

    def _set(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- searching ------------------------------------------------------------------------

    def nearest(
        self, query: list[float], model: str, limit: int, among: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """The ``limit`` passages most similar to ``query`` (cosine), best first, of those
        whose ids are ``among`` when given (a sub-folder's); none when the stored vectors
        come from another model than the query's."""
        import numpy as np

        if not same_model(self.model(), model):
            return []
        matrix, ids = self._current()
        if len(ids) == 0:
            return []
        vector = unit(np.asarray(query, np.float32))
        if vector.shape[0] != matrix.shape[1]:
            return []  # the model changed under its name: nothing to compare with yet
        scores = matrix @ vector
        if among is not None:
            inside = np.isin(ids, np.asarray(among, np.int64))
            scores = np.where(inside, scores, -np.inf)
            limit = min(limit, int(inside.sum()))
            if limit == 0:
                return []
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top])]
        return [(int(ids[i]), float(scores[i])) for i in top]

    def refresh_matrix(self) -> None:
        """Write the matrix now (after indexing), so the first search does not."""
        self._current()

    def _current(self) -> tuple[Any, Any]:
        version = self._get("vectors_version")
        if version != self._loaded:
            self._matrix, self._ids = self._load(version)
            self._loaded = version
        return self._matrix, self._ids

    def _get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def _load(self, version: str | None) -> tuple[Any, Any]:
        import numpy as np

        empty = self.conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is None
        if empty or str(self.db_path) == ":memory:":
            return self._read_table()
        matrix_file, ids_file = matrix_paths(self.db_path, f"{self._get('vectors_id')}-{version}")
        if self.readonly and not matrix_file.exists():  # the indexer writes it, not a reader
            return self._read_table()
        with build_lock(self.db_path):
            if not matrix_file.exists():  # written last: when it exists, so do the ids
                try:
                    self._write_files(matrix_file, ids_file)
                except (OSError, ValueError) as exc:
                    self._warn(
                        f"Cannot write the vector matrix next to {self.db_path} ({exc}); "
                        "searching the stored vectors instead, more slowly — free disk space."
                    )
                    return self._read_table()
                remove_stale(self.db_path, matrix_file, ids_file)
        try:
            with OPEN_LOCK:
                return np.load(matrix_file, mmap_mode="r"), np.load(ids_file)
        except (OSError, ValueError):  # removed or damaged meanwhile: the table still knows
            return self._read_table()

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[None]:
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def _rows(self) -> Iterator[tuple[int, bytes]]:
        yield from self.conn.execute("SELECT chunk_id, vector FROM vectors ORDER BY chunk_id")

    def _read_table(self) -> tuple[Any, Any]:
        import numpy as np

        rows = list(self._rows())
        dims = {len(blob) for _, blob in rows}
        if not rows or len(dims) != 1:  # none, or sizes mixed by an older ponder: none usable
            return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
        ids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), -1)
        return matrix, ids

    def _write_files(self, matrix_file: Path, ids_file: Path) -> None:
        """Stream the table into files under names of their own, then move them in place,
        ids first; a failure removes what was written."""
        partials = [partial_path(self.db_path), partial_path(self.db_path)]
        try:
            with self._snapshot():  # count and rows agree even if another process writes
                count = self.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
                dims = int(self._get("embed_dims") or 0)
                self._write_partial(partials[0], partials[1], count, dims)
            os.replace(partials[1], ids_file)
            os.replace(partials[0], matrix_file)
        finally:
            for leftover in partials:
                leftover.unlink(missing_ok=True)

    def _write_partial(self, matrix_path: Path, ids_path: Path, count: int, dims: int) -> None:
        import numpy as np

        matrix = np.lib.format.open_memmap(matrix_path, "w+", np.float32, (count, dims))
        ids = np.zeros(count, np.int64)
        for row, (chunk_id, blob) in enumerate(self._rows()):
            ids[row] = chunk_id
            matrix[row] = np.frombuffer(blob, np.float32)
        matrix.flush()
        del matrix
        with ids_path.open("wb") as out:
            np.save(out, ids)


def unit(vector: Any) -> Any:
    """``vector`` scaled to length 1, so a dot product is the cosine similarity."""
    import numpy as np

    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
