"""Checkpointing: every CLI and API run is saved in SQLite so it can be resumed."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ponder.errors import StorageError
from ponder.paths import data_dir


def checkpoint_path() -> Path:
    return data_dir() / "checkpoints.sqlite"


@asynccontextmanager
async def open_checkpointer(path: Path | None = None) -> AsyncIterator[Any]:
    """LangGraph's async SQLite saver on the user's checkpoint file."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    target = path or checkpoint_path()
    try:
        async with AsyncSqliteSaver.from_conn_string(str(target)) as saver:
            await saver.setup()
            yield saver
    except sqlite3.OperationalError as exc:
        raise StorageError(
            f"Cannot write the checkpoint file {target} ({exc}) — free disk space or set "
            "PONDER_DATA_DIR to a writable folder."
        ) from None
