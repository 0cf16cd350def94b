"""Document indexes shared by replicas through a volume: one indexer writes, readers read.

SQLite's write-ahead log keeps its index of the log in shared memory beside the database,
which processes on other machines do not share: over a network filesystem it breaks. So the
indexer of a shared folder (``PONDER_INDEX_DIR``) keeps a rollback journal, and a reader
(``PONDER_INDEX_READONLY``) opens the database read-only and refuses one in WAL mode. A
reader writes nothing there: no schema, no refresh, no embedding, no vector matrix (without
the indexer's matrix file it reads the vectors from the table). The document folders must
be at the same paths on every replica: an index is found by its folder's path.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from ponder.core.errors import StorageError
from ponder.settings.paths import IndexRole

Warn = Callable[[str], None]

_WAL = 2  # the database header's read and write versions (bytes 18 and 19) in WAL mode


class IndexReadOnlyError(StorageError):
    """A reader was asked to write the shared document indexes."""

    def __init__(self) -> None:
        super().__init__(
            "This process only reads the shared document indexes (PONDER_INDEX_READONLY): "
            "index the documents on the indexer, the one process that writes them."
        )


def journal_mode(role: IndexRole) -> str:
    """A write-ahead log for an index of this machine's own; a rollback journal for one
    that other machines read."""
    return "DELETE" if role == "indexer" else "WAL"


def in_wal_mode(db_path: Path) -> bool:
    """Whether the database's header says it is in WAL mode (read without opening it)."""
    try:
        with db_path.open("rb") as file:
            header = file.read(20)
    except OSError:
        return False
    return len(header) == 20 and _WAL in (header[18], header[19])


def open_for_reading(db_path: Path, warn: Warn) -> sqlite3.Connection | None:
    """A read-only connection to a shared index; None (after a warning saying what to do)
    when there is none yet or it cannot be shared. No path in the warnings: a served
    caller reads them."""
    if not db_path.is_file():
        warn(
            "No shared index of these documents yet: index them on the indexer "
            "(`ponder index` with the same PONDER_INDEX_DIR); searching nothing meanwhile."
        )
        return None
    if in_wal_mode(db_path):
        warn(
            "The shared document index uses a write-ahead log, which readers on other "
            "machines cannot share: index again on the indexer with PONDER_INDEX_DIR set "
            "(it switches to a rollback journal); searching nothing meanwhile."
        )
        return None
    uri = f"file:{quote(str(db_path))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
        conn.execute("SELECT count(*) FROM files").fetchone()
    except sqlite3.Error as exc:
        warn(f"Cannot read the shared document index ({exc}); searching nothing meanwhile.")
        return None
    return conn
