"""The run history's database: SQLite in the data folder, or PostgreSQL when
``PONDER_DATABASE_URL`` is set; its tables (runs, and each run's turns), and the
migrations that bring an older SQLite file up to date."""

from __future__ import annotations

import sqlite3
from typing import Any

from ponder.core.errors import StorageError
from ponder.settings.machine import Machine
from ponder.settings.paths import data_folder, ensure

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
_TURNS = """
CREATE TABLE IF NOT EXISTS {turns} (
    thread_id TEXT NOT NULL, turn INTEGER NOT NULL, question TEXT NOT NULL,
    started {real} NOT NULL, ended {real}, checkpoint_id TEXT, PRIMARY KEY (thread_id, turn)
)
"""
# Append-only: each entry runs once on databases that predate it.
_MIGRATIONS = (
    "ALTER TABLE runs ADD COLUMN pid INTEGER",
    "ALTER TABLE runs ADD COLUMN host TEXT",
    _TURNS.format(turns="turns", real="REAL"),
    # Claims (see runs.py): who holds a running run, until when, and in which process space.
    "ALTER TABLE runs ADD COLUMN claim TEXT",
    "ALTER TABLE runs ADD COLUMN lease REAL",
    "ALTER TABLE runs ADD COLUMN pidspace TEXT",
)
_POSTGRES_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS ponder_runs (
    thread_id TEXT PRIMARY KEY, topic TEXT NOT NULL, config TEXT NOT NULL,
    status TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, updated DOUBLE PRECISION NOT NULL,
    output TEXT, message TEXT, pid INTEGER, host TEXT
)
""",
    _TURNS.format(turns="ponder_turns", real="DOUBLE PRECISION"),
    "ALTER TABLE ponder_runs ADD COLUMN IF NOT EXISTS claim TEXT",
    "ALTER TABLE ponder_runs ADD COLUMN IF NOT EXISTS lease DOUBLE PRECISION",
    "ALTER TABLE ponder_runs ADD COLUMN IF NOT EXISTS pidspace TEXT",
)
# Whether the tables are there as _POSTGRES_SCHEMA makes them (its last column added).
_POSTGRES_CURRENT = (
    "SELECT to_regclass('ponder_turns') IS NOT NULL AND EXISTS (SELECT 1 FROM"
    " information_schema.columns WHERE table_schema = current_schema()"
    " AND table_name = 'ponder_runs' AND column_name = 'pidspace')"
)
_SCHEMA_LOCK = 0x706F6E646572  # "ponder": the advisory lock its schema changes take
COLUMNS = "thread_id, topic, config, status, created, updated, output, message, pid, host"
CLAIM_COLUMNS = "claim, lease, pidspace"
# The database's clock, in seconds since the epoch: leases are set and judged by it, so the
# machines sharing a database need not agree on the time.
_NOW = {
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
    "postgres": "EXTRACT(EPOCH FROM clock_timestamp())::float8",
}


class Database:
    """One connection to the history: SQLite (``?`` parameters) or PostgreSQL (``%s``)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.url = machine.database_url
        prefix = "ponder_" if self.url else ""
        self.names = {
            "{runs}": f"{prefix}runs",
            "{turns}": f"{prefix}turns",
            "{now}": _NOW["postgres" if self.url else "sqlite"],
        }
        self.conn: Any = self._postgres() if self.url else self._sqlite()

    def _sqlite(self) -> sqlite3.Connection:
        conn = sqlite3.connect(ensure(data_folder(self.machine)) / "runs.sqlite", timeout=10)
        if _version(conn) < len(_MIGRATIONS):
            # One process migrates at a time: the others wait, then find it done.
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(_SCHEMA)
            version = _version(conn)
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
        current = conn.execute(_POSTGRES_CURRENT).fetchone()
        if not (current and current[0]):
            # One machine creates or updates the tables at a time: two CREATE TABLE IF NOT
            # EXISTS at once fail in PostgreSQL, and the others then find it done.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _POSTGRES_SCHEMA:
                conn.execute(statement)
        conn.commit()
        return conn

    def execute(self, query: str, params: tuple[Any, ...] = ()) -> Any:
        for name, replacement in self.names.items():
            query = query.replace(name, replacement)
        return self.conn.execute(query.replace("?", "%s") if self.url else query, params)


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:
        return (sqlite3.Error, OSError)
    return (sqlite3.Error, psycopg.Error, OSError, ValueError)  # ValueError: a malformed URL


def storage_error(url: str | None, exc: Exception) -> StorageError:
    if url is not None:
        from ponder.services.storage.checkpoints import database_error

        return database_error(url, exc)
    return StorageError(
        f"Cannot use the run history in the data folder ({exc}) — free disk space or set "
        "PONDER_DATA_DIR to a writable folder."
    )
