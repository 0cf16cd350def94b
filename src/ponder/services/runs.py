"""A small history of runs (id, topic, status) so `ponder runs` and `ponder resume` work."""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Literal

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
    conn = sqlite3.connect(data_dir() / "runs.sqlite", timeout=10)
    conn.execute(_SCHEMA)
    return conn


def start(thread_id: str, topic: str, config: dict[str, Any]) -> None:
    now = time.time()
    with closing(_connect()) as conn, conn:
        conn.execute(
            "INSERT INTO runs VALUES (?, ?, ?, 'running', ?, ?, NULL, NULL) "
            "ON CONFLICT(thread_id) DO UPDATE SET status='running', updated=excluded.updated",
            (thread_id, topic, json.dumps(config), now, now),
        )


def finish(
    thread_id: str, status: Status, *, output: str | None = None, message: str | None = None
) -> None:
    with closing(_connect()) as conn, conn:
        conn.execute(
            "UPDATE runs SET status=?, updated=?, output=COALESCE(?, output), message=? "
            "WHERE thread_id=?",
            (status, time.time(), output, message, thread_id),
        )


def get(thread_id: str) -> RunRecord | None:
    with closing(_connect()) as conn:
        row = conn.execute("SELECT * FROM runs WHERE thread_id=?", (thread_id,)).fetchone()
    return _record(row) if row else None


def recent(limit: int = 20) -> list[RunRecord]:
    with closing(_connect()) as conn:
        rows = conn.execute("SELECT * FROM runs ORDER BY updated DESC LIMIT ?", (limit,)).fetchall()
    return [_record(r) for r in rows]


def _record(row: tuple[Any, ...]) -> RunRecord:
    return RunRecord(row[0], row[1], json.loads(row[2]), *row[3:])
