"""A small history of runs (id, topic, status) so `ponder runs` and `ponder resume` work.

It lives beside the checkpoints: in SQLite in the data folder, or in PostgreSQL when
``PONDER_DATABASE_URL`` is set (then every machine using that database sees every run).
Where, and this machine's name in it, are the machine's settings an edge passes in.
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
from ponder.settings.machine import Machine
from ponder.settings.paths import data_folder, ensure

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


def this_host(machine: Machine) -> str:
    """This machine's name in the run history (``PONDER_HOST_ID`` overrides: containers get
    a new host name each time they start)."""
    return machine.host_id or socket.gethostname()


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
    # Recorded by another machine (sharing the database): its process is not ours to see.
    elsewhere: bool = False


class _Database:
    """One connection to the history: SQLite (``?`` parameters) or PostgreSQL (``%s``)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.url = machine.database_url
        self.table = "ponder_runs" if self.url else "runs"
        self.conn: Any = self._postgres() if self.url else self._sqlite()

    def _sqlite(self) -> sqlite3.Connection:
        conn = sqlite3.connect(ensure(data_folder(self.machine)) / "runs.sqlite", timeout=10)
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


def _storage_error(url: str | None, exc: Exception) -> StorageError:
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


class RunHistory:
    """The run history of the database the machine's settings name."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.host = this_host(machine)

    @contextmanager
    def _database(self) -> Iterator[_Database]:
        """A connection for one operation, committed at the end; failures are StorageErrors."""
        try:
            database = _Database(self.machine)
            with closing(database.conn):
                yield database
                database.conn.commit()
        except _errors() as exc:
            raise _storage_error(self.machine.database_url, exc) from None

    def start(self, thread_id: str, topic: str, config: dict[str, Any]) -> None:
        """Record a run as running; a history that cannot be written stops the run clearly."""
        now = time.time()
        config = {key: value for key, value in config.items() if key not in NOT_STORED}
        config = redact_value(config)  # a URL's credentials: resume takes them from the env
        with self._database() as db:
            db.execute(
                f"INSERT INTO {{runs}} ({_COLUMNS}) VALUES (?, ?, ?, 'running', ?, ?, NULL, NULL,"
                " ?, ?) ON CONFLICT(thread_id) DO UPDATE SET status='running',"
                " config=excluded.config, topic=excluded.topic,"
                " updated=excluded.updated, pid=excluded.pid, host=excluded.host",
                (thread_id, topic, json.dumps(config), now, now, os.getpid(), self.host),
            )

    def finish(
        self,
        thread_id: str,
        status: Status,
        *,
        output: str | None = None,
        message: str | None = None,
    ) -> bool:
        """Record how a run ended. Never raises: it runs while another error may be in flight."""
        try:
            with self._database() as db:
                db.execute(
                    "UPDATE {runs} SET status=?, updated=?, output=COALESCE(?, output), message=? "
                    "WHERE thread_id=?",
                    (status, time.time(), output, message and redact(message), thread_id),
                )
        except StorageError:
            return False
        return True

    def get(self, thread_id: str) -> RunRecord | None:
        rows = self._select(f"SELECT {_COLUMNS} FROM {{runs}} WHERE thread_id=?", (thread_id,))
        return self._record(rows[0]) if rows else None

    def recent(self, limit: int = 20) -> list[RunRecord]:
        query = f"SELECT {_COLUMNS} FROM {{runs}} ORDER BY updated DESC LIMIT ?"
        return [self._record(r) for r in self._select(query, (limit,))]

    def delete(self, thread_id: str) -> bool:
        """Remove a run from the history; False when it was not there."""
        with self._database() as db:
            return bool(db.execute("DELETE FROM {runs} WHERE thread_id=?", (thread_id,)).rowcount)

    def _select(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._database() as db:
            return list(db.execute(query, params).fetchall())

    def _record(self, row: tuple[Any, ...]) -> RunRecord:
        thread_id, topic, config, status, created, updated, output, message, pid, host = row
        elsewhere = host is not None and host != self.host
        record = RunRecord(
            thread_id, topic, json.loads(config), status, created, updated, output, message,
            host, elsewhere,
        )  # fmt: skip
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
