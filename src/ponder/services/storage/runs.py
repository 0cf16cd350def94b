"""A small history of runs (id, topic, status) so `ponder runs` and `ponder resume` work.

It lives beside the checkpoints: in SQLite in the data folder, or in PostgreSQL when
``PONDER_DATABASE_URL`` is set (then every machine using that database sees every run).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from ponder.core.errors import StorageError
from ponder.core.redact import redact, redact_value
from ponder.settings.environment import machine
from ponder.settings.paths import data_dir, database_url

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
_MIGRATIONS = ("ALTER TABLE runs ADD COLUMN pid INTEGER", "ALTER TABLE runs ADD COLUMN host TEXT")
_POSTGRES_SCHEMA = """
CREATE TABLE IF NOT EXISTS ponder_runs (
    thread_id TEXT PRIMARY KEY, topic TEXT NOT NULL, config TEXT NOT NULL,
    status TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, updated DOUBLE PRECISION NOT NULL,
    output TEXT, message TEXT, pid INTEGER, host TEXT
)
"""
_COLUMNS = "thread_id, topic, config, status, created, updated, output, message, pid, host"


def this_host() -> str:
    """This machine's name in the run history (``PONDER_HOST_ID`` overrides: containers get
    a new host name each time they start)."""
    return machine().host_id or socket.gethostname()


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
    host: str | None = None  # the machine that ran it last

    @property
    def elsewhere(self) -> bool:
        """Recorded by another machine (sharing the database): its process is not ours to see."""
        return self.host is not None and self.host != this_host()


class _Database:
    """One connection to the history: SQLite (``?`` parameters) or PostgreSQL (``%s``)."""

    def __init__(self) -> None:
        self.url = database_url()
        self.table = "ponder_runs" if self.url else "runs"
        self.conn: Any = self._postgres() if self.url else self._sqlite()

    def _sqlite(self) -> sqlite3.Connection:
        conn = sqlite3.connect(data_dir() / "runs.sqlite", timeout=10)
        conn.execute(_SCHEMA)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for number, statement in enumerate(_MIGRATIONS[version:], start=version + 1):
            conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.commit()
        return conn

    def _postgres(self) -> Any:
        try:
            import psycopg
        except ImportError:
            from ponder.services.storage.checkpoints import postgres_missing

            raise postgres_missing() from None

        conn = psycopg.connect(str(self.url), connect_timeout=10)
        conn.execute(_POSTGRES_SCHEMA)
        conn.commit()
        return conn

    def execute(self, query: str, params: tuple[Any, ...] = ()) -> Any:
        query = query.replace("{runs}", self.table)
        return self.conn.execute(query.replace("?", "%s") if self.url else query, params)


def _errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error, OSError)
    return (sqlite3.Error, psycopg.Error, OSError, ValueError)  # ValueError: a malformed URL


@contextmanager
def _database() -> Iterator[_Database]:
    """A connection for one operation, committed at the end; failures are StorageErrors."""
    try:
        database = _Database()
        with closing(database.conn):
            yield database
            database.conn.commit()
    except _errors() as exc:
        raise _storage_error(exc) from None


def _storage_error(exc: Exception) -> StorageError:
    url = database_url()
    if url is not None:
        from ponder.services.storage.checkpoints import database_error

        return database_error(url, exc)
    return StorageError(
        f"Cannot use the run history in the data folder ({exc}) — free disk space or set "
        "PONDER_DATA_DIR to a writable folder."
    )


# Not kept with a run (the history may be a shared database): MCP servers carry tokens in
# their env and URLs; a URL's credentials are kept as REDACTED. A resumed run takes those
# from the environment (or resume's kwargs).
NOT_STORED = ("mcp_servers",)


def start(thread_id: str, topic: str, config: dict[str, Any]) -> None:
    """Record a run as running; a history that cannot be written stops the run clearly."""
    now = time.time()
    config = {key: value for key, value in config.items() if key not in NOT_STORED}
    config = redact_value(config)  # a URL's credentials: resume takes them from the env
    with _database() as db:
        db.execute(
            f"INSERT INTO {{runs}} ({_COLUMNS}) VALUES (?, ?, ?, 'running', ?, ?, NULL, NULL, ?, ?)"
            " ON CONFLICT(thread_id) DO UPDATE SET status='running', config=excluded.config,"
            " topic=excluded.topic,"
            " updated=excluded.updated, pid=excluded.pid, host=excluded.host",
            (thread_id, topic, json.dumps(config), now, now, os.getpid(), this_host()),
        )


def finish(
    thread_id: str, status: Status, *, output: str | None = None, message: str | None = None
) -> bool:
    """Record how a run ended. Never raises: it runs while another error may be in flight."""
    try:
        with _database() as db:
            db.execute(
                "UPDATE {runs} SET status=?, updated=?, output=COALESCE(?, output), message=? "
                "WHERE thread_id=?",
                (status, time.time(), output, message and redact(message), thread_id),
            )
    except StorageError:
        return False
    return True


def get(thread_id: str) -> RunRecord | None:
    rows = _select(f"SELECT {_COLUMNS} FROM {{runs}} WHERE thread_id=?", (thread_id,))
    return _record(rows[0]) if rows else None


def recent(limit: int = 20) -> list[RunRecord]:
    rows = _select(f"SELECT {_COLUMNS} FROM {{runs}} ORDER BY updated DESC LIMIT ?", (limit,))
    return [_record(r) for r in rows]


def delete(thread_id: str) -> bool:
    """Remove a run from the history; False when it was not there."""
    with _database() as db:
        return bool(db.execute("DELETE FROM {runs} WHERE thread_id=?", (thread_id,)).rowcount)


def _select(query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    with _database() as db:
        return list(db.execute(query, params).fetchall())


def _record(row: tuple[Any, ...]) -> RunRecord:
    thread_id, topic, config, status, created, updated, output, message, pid, host = row
    record = RunRecord(
        thread_id, topic, json.loads(config), status, created, updated, output, message, host
    )
    if record.status == "running" and not record.elsewhere and not _alive(pid):
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
