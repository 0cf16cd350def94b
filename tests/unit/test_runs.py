"""The run history behind `ponder runs` and `ponder resume`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.edges import history

from ponder.core.errors import StorageError
from ponder.services.storage import runs


def test_a_run_whose_process_died_shows_as_interrupted(isolated: Path) -> None:
    history().start("alive", "topic", {})
    assert history().get("alive").status == "running"  # type: ignore[union-attr]
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    with sqlite3.connect(isolated / "data" / "runs.sqlite") as conn:
        conn.execute("UPDATE runs SET pid=? WHERE thread_id='alive'", (int(dead.stdout),))
    assert history().get("alive").status == "interrupted"  # type: ignore[union-attr]
    assert [r.status for r in history().recent()] == ["interrupted"]


def test_history_from_before_the_pid_column_is_migrated(isolated: Path) -> None:
    folder = isolated / "data"
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(folder / "runs.sqlite") as conn:
        conn.execute(runs._SCHEMA)
        conn.execute("INSERT INTO runs VALUES ('old', 't', '{}', 'done', 1, 2, NULL, NULL)")
    assert history().get("old").status == "done"  # type: ignore[union-attr]
    history().start("new", "t2", {"max_loops": 2})
    assert history().get("new").config == {"max_loops": 2}  # type: ignore[union-attr]


def test_unwritable_history_is_a_storage_error_and_finish_never_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(_self: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(runs._Database, "_sqlite", broken)
    with pytest.raises(StorageError, match="PONDER_DATA_DIR"):
        history().start("t", "topic", {})
    assert history().finish("t", "failed") is False
