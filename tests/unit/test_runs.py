"""The run history behind `ponder runs` and `ponder resume`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.edges import history

from ponder.core.errors import StorageError
from ponder.services.storage import history_db


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
        conn.execute(history_db._SCHEMA)
        conn.execute("INSERT INTO runs VALUES ('old', 't', '{}', 'done', 1, 2, NULL, NULL)")
    assert history().get("old").status == "done"  # type: ignore[union-attr]
    history().start("new", "t2", {"max_loops": 2})
    assert history().get("new").config == {"max_loops": 2}  # type: ignore[union-attr]


def test_unwritable_history_is_a_storage_error_and_finish_never_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(_self: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history_db.Database, "_sqlite", broken)
    with pytest.raises(StorageError, match="PONDER_DATA_DIR"):
        history().start("t", "topic", {})
    assert history().finish("t", "failed") is False


def test_a_run_keeps_its_first_question_and_records_each_turn(isolated: Path) -> None:
    history().start("t", "How do tides work?", {})
    history().finish("t", "done", checkpoint_id="c1")
    assert history().follow_up("t", "What do pilots read?", {"max_loops": 1})[0] == 2
    record = history().get("t")
    assert record is not None and record.status == "running"
    assert record.topic == "How do tides work?", "a follow-up does not retitle the run"
    assert record.questions == ["How do tides work?", "What do pilots read?"]
    history().finish("t", "done", checkpoint_id="c2")
    turns = history().turns("t")
    assert [(t.number, t.question, t.checkpoint_id) for t in turns] == [
        (1, "How do tides work?", "c1"),
        (2, "What do pilots read?", "c2"),
    ]
    assert [r.questions for r in history().recent()] == [record.questions]
    history().start("t", "How do tides work?", {})  # resumed: the same turns
    assert len(history().turns("t")) == 2
    assert history().delete("t") and history().turns("t") == []


def test_history_from_before_turns_is_one_turn_per_run_and_takes_follow_ups(
    isolated: Path,
) -> None:
    folder = isolated / "data"
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(folder / "runs.sqlite") as conn:
        conn.execute(history_db._SCHEMA)
        for statement in history_db._MIGRATIONS[:2]:  # pid and host: where 0.x stopped
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 2")
        conn.execute(
            "INSERT INTO runs VALUES ('old', 'Why two tides?', '{}', 'done', 1, 2, NULL, NULL,"
            " NULL, NULL)"
        )
    [only] = history().turns("old")
    assert (only.number, only.question, only.checkpoint_id) == (1, "Why two tides?", None)
    assert history().get("old").turns == 1  # type: ignore[union-attr]
    assert history().follow_up("old", "And in lakes?", {})[0] == 2
    history().settle("old", 1, "before")
    turns = history().turns("old")
    assert [(t.question, t.started, t.ended, t.checkpoint_id) for t in turns[:1]] == [
        ("Why two tides?", 1, 2, "before")
    ]
    assert turns[1].question == "And in lakes?" and turns[1].ended is None
