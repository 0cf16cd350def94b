"""A small history of runs (id, topic, status) so `ponder runs` and `ponder resume` work."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Literal

from ponder.errors import StorageError
from ponder.paths import data_dir

Status = Literal["running", "waiting", "done", "interrupted", "failed"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    thread_id TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    output TEXT,
    message TEXT
)
"""
# Append-only: each entry runs once on databases that predate it.
_MIGRATIONS = ("ALTER TABLE runs ADD COLUMN pid INTEGER",)
_COLUMNS = "thread_id, topic, config, status, created, updated, output, message, pid"


@dataclass
class RunRecord:
    thread_id: str
    topic: str
    config: dict[str, Any]
    status: str
    created: float
    updated: float
    output: str | None
    message: str | None


def _connect() -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(data_dir() / "runs.sqlite", timeout=10)
        conn.execute(_SCHEMA)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for number, statement in enumerate(_MIGRATIONS[version:], start=version + 1):
            conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.commit()
    except (OSError, sqlite3.Error) as exc:
        raise _storage_error(exc) from None
    return conn


def _storage_error(exc: Exception) -> StorageError:
    return StorageError(
        f"Cannot use the run history in the data folder ({exc}) — free disk space or set "
        "PONDER_DATA_DIR to a writable folder."
    )


def start(thread_id: str, topic: str, config: dict[str, Any]) -> None:
    """Record a run as running; a history that cannot be written stops the run clearly."""
    now = time.time()
    try:
        with closing(_connect()) as conn, conn:
            conn.execute(
                f"INSERT INTO runs ({_COLUMNS}) VALUES (?, ?, ?, 'running', ?, ?, NULL, NULL, ?) "
                "ON CONFLICT(thread_id) DO UPDATE SET status='running', "
                "config=excluded.config, updated=excluded.updated, pid=excluded.pid",
                (thread_id, topic, json.dumps(config), now, now, os.getpid()),
            )
    except sqlite3.Error as exc:
        raise _storage_error(exc) from None


def finish(
    thread_id: str, status: Status, *, output: str | None = None, message: str | None = None
) -> bool:
    """Record how a run ended. Never raises: it runs while another error may be in flight."""
    try:
        with closing(_connect()) as conn, conn:
            conn.execute(
                "UPDATE runs SET status=?, updated=?, output=COALESCE(?, output), message=? "
                "WHERE thread_id=?",
                (status, time.time(), output, message, thread_id),
            )
    except (sqlite3.Error, StorageError):
        return False
    return True


def get(thread_id: str) -> RunRecord | None:
    rows = _select(f"SELECT {_COLUMNS} FROM runs WHERE thread_id=?", (thread_id,))
    return _record(rows[0]) if rows else None


def recent(limit: int = 20) -> list[RunRecord]:
    rows = _select(f"SELECT {_COLUMNS} FROM runs ORDER BY updated DESC LIMIT ?", (limit,))
    return [_record(r) for r in rows]


def _select(query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    try:
        with closing(_connect()) as conn:
            return conn.execute(query, params).fetchall()
    except sqlite3.Error as exc:
        raise _storage_error(exc) from None


def _record(row: tuple[Any, ...]) -> RunRecord:
    record = RunRecord(row[0], row[1], json.loads(row[2]), *row[3:8])
    if record.status == "running" and not _alive(row[8]):
        record.status = "interrupted"  # its process died (SIGKILL, power loss) mid-run
    return record


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True
