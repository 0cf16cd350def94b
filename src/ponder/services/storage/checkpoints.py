"""Checkpointing: every CLI and API run is saved so it can be resumed.

In SQLite in the data folder by default; in PostgreSQL when ``PONDER_DATABASE_URL`` is set,
so a run started on one machine is resumed on another (LangGraph's own savers, both).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ponder.core.errors import StorageError
from ponder.settings.machine import Machine
from ponder.settings.paths import data_folder, ensure, redacted, secrets_of


def checkpoint_path(machine: Machine) -> Path:
    return ensure(data_folder(machine)) / "checkpoints.sqlite"


@asynccontextmanager
async def open_checkpointer(machine: Machine, path: Path | None = None) -> AsyncIterator[Any]:
    """LangGraph's async saver: PostgreSQL when the machine's settings name one, else the
    SQLite file in its data folder (or ``path``)."""
    url = machine.database_url
    if url is not None and path is None:
        async with _postgres(url) as saver:
            yield saver
        return
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    target = path or checkpoint_path(machine)
    try:
        async with AsyncSqliteSaver.from_conn_string(str(target)) as saver:
            await saver.setup()
            yield saver
    except sqlite3.OperationalError as exc:
        raise StorageError(
            f"Cannot write the checkpoint file {target} ({exc}) — free disk space or set "
            "PONDER_DATA_DIR to a writable folder."
        ) from None


def postgres_missing() -> StorageError:
    return StorageError(
        "PONDER_DATABASE_URL is set, but PostgreSQL support is not installed — "
        'run `pip install "ponder[postgres]"`, or unset it to keep runs in SQLite.'
    )


@asynccontextmanager
async def _postgres(url: str) -> AsyncIterator[Any]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError:
        raise postgres_missing() from None

    try:
        async with AsyncPostgresSaver.from_conn_string(url) as saver:
            await saver.setup()
            yield saver
    except (psycopg.Error, ValueError) as exc:  # unreachable, refused, or a malformed URL
        raise database_error(url, exc) from None


def database_error(url: str, exc: Exception) -> StorageError:
    """A message about the database that never shows its password: the driver's own text
    may quote the connection string, so the URL and the password are cut out of it."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    for secret in secrets_of(url):
        text = text.replace(secret, "***")
    return StorageError(
        f"Cannot use the database at {redacted(url)} ({text}) — check that PostgreSQL is "
        "running and PONDER_DATABASE_URL is right, or unset it to keep runs in SQLite."
    )
