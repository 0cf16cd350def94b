"""What the UI keeps beside the run history: who started each run, each run's events,
and the folders the operator indexed from the page.

The events are the page's replay: a tab that opens a run (again, or after the server was
restarted) gets every event it missed, numbered, before the live ones. They live in SQLite
in the data folder, written in batches so a streaming report costs one write per batch,
not one per token.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from contextlib import closing
from typing import Any

from ponder.core.errors import StorageError
from ponder.settings.environment import machine
from ponder.settings.paths import data_folder, ensure

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS owners (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS events (thread_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " event TEXT NOT NULL, PRIMARY KEY (thread_id, seq))",
    "CREATE TABLE IF NOT EXISTS folders (path TEXT PRIMARY KEY)",
    # What a caller asked for when a run began: a follow-up is vetted again from it.
    "CREATE TABLE IF NOT EXISTS asked (thread_id TEXT PRIMARY KEY, options TEXT NOT NULL)",
)


def _connect() -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(ensure(data_folder(machine())) / "ui.sqlite", timeout=10)
        for statement in _SCHEMA:
            conn.execute(statement)
    except sqlite3.Error as exc:
        raise StorageError(
            f"Cannot use the UI's store in the data folder ({exc}) — free disk space or set "
            "PONDER_DATA_DIR to a writable folder."
        ) from None
    return conn


def _write(statement: str, rows: Iterable[tuple[Any, ...]]) -> None:
    with closing(_connect()) as conn, conn:
        conn.executemany(statement, rows)


def _read(query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    with closing(_connect()) as conn:
        return list(conn.execute(query, params).fetchall())


def set_owner(thread_id: str, owner: str) -> None:
    _write("INSERT OR REPLACE INTO owners VALUES (?, ?)", [(thread_id, owner)])


def watch_run_owned(watch: Any, thread_id: str) -> None:
    """A watch's run is its owner's (shown in their History), wherever it started: here,
    or `ponder watch run`; the command line's watches, like its runs, are the operator's."""
    if watch.owner:
        set_owner(thread_id, watch.owner)


def set_asked(thread_id: str, options: dict[str, Any]) -> None:
    _write("INSERT OR REPLACE INTO asked VALUES (?, ?)", [(thread_id, json.dumps(options))])


def asked(thread_id: str) -> dict[str, Any] | None:
    """What the caller asked for when the run began (None: not kept, an older run)."""
    rows = _read("SELECT options FROM asked WHERE thread_id=?", (thread_id,))
    return dict(json.loads(rows[0][0])) if rows else None


def owners() -> dict[str, str]:
    """Each run the UI started, and who started it (runs from the CLI or API have none)."""
    return {
        str(thread): str(owner)
        for thread, owner in _read("SELECT thread_id, owner FROM owners", ())
    }


def append_events(thread_id: str, events: list[tuple[int, dict[str, Any]]]) -> None:
    rows = [(thread_id, seq, json.dumps(event)) for seq, event in events]
    _write("INSERT OR REPLACE INTO events VALUES (?, ?, ?)", rows)


def events(thread_id: str) -> list[tuple[int, dict[str, Any]]]:
    rows = _read("SELECT seq, event FROM events WHERE thread_id=? ORDER BY seq", (thread_id,))
    return [(int(seq), json.loads(text)) for seq, text in rows]


def add_folder(path: str) -> None:
    """A folder the operator indexed from the page: offered on the ask form from then on."""
    _write("INSERT OR IGNORE INTO folders VALUES (?)", [(path,)])


def folders() -> list[str]:
    return [str(row[0]) for row in _read("SELECT path FROM folders ORDER BY path", ())]


def forget(thread_id: str) -> None:
    with closing(_connect()) as conn, conn:
        conn.execute("DELETE FROM events WHERE thread_id=?", (thread_id,))
        conn.execute("DELETE FROM owners WHERE thread_id=?", (thread_id,))
        conn.execute("DELETE FROM asked WHERE thread_id=?", (thread_id,))
