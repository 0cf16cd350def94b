"""Who started each of `ponder mcp`'s runs, so only they can resume it.

A run belongs to the user whose token started it (:func:`ponder.interfaces.mcp.http.caller`;
without tokens, to whoever is on the machine). ``resume`` of a run that is not the caller's
answers as for a run that does not exist: another user cannot even learn that the id is
taken. The owners live in SQLite in the data folder, beside the run history, so a restarted
server still knows them; a run with no owner recorded (started before owners were kept, or
by another program) is nobody's to resume here.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

from ponder.core.errors import StorageError
from ponder.settings.environment import machine
from ponder.settings.paths import data_folder, ensure

_SCHEMA = "CREATE TABLE IF NOT EXISTS owners (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL)"
# What the caller asked for when the run began: its resume is vetted again from it.
_ASKED = "CREATE TABLE IF NOT EXISTS asked (thread_id TEXT PRIMARY KEY, options TEXT NOT NULL)"


def _connect() -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(ensure(data_folder(machine())) / "mcp.sqlite", timeout=10)
        conn.execute(_SCHEMA)
        conn.execute(_ASKED)
    except sqlite3.Error as exc:
        raise StorageError(
            f"Cannot keep the MCP server's run owners in the data folder ({exc}) — free disk "
            "space or set PONDER_DATA_DIR to a writable folder."
        ) from None
    return conn


def set_owner(thread_id: str, owner: str, asked: dict[str, Any] | None = None) -> None:
    """Who started the run, and what they asked for (vetted again when they resume it)."""
    with closing(_connect()) as conn, conn:
        conn.execute("INSERT OR REPLACE INTO owners VALUES (?, ?)", (thread_id, owner))
        if asked is not None:
            conn.execute(
                "INSERT OR REPLACE INTO asked VALUES (?, ?)", (thread_id, json.dumps(asked))
            )


def asked(thread_id: str) -> dict[str, Any] | None:
    """What the caller asked for when the run began (None: not kept, an older run)."""
    with closing(_connect()) as conn:
        row = conn.execute("SELECT options FROM asked WHERE thread_id=?", (thread_id,)).fetchone()
    return dict(json.loads(row[0])) if row else None


def owner(thread_id: str) -> str | None:
    """Who started the run, or None when this server did not record one."""
    with closing(_connect()) as conn:
        row = conn.execute("SELECT owner FROM owners WHERE thread_id=?", (thread_id,)).fetchone()
    return str(row[0]) if row else None
