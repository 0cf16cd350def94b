"""Checkpoints and run history in PostgreSQL (a real server, from the pgserver package):
what one machine starts, another lists and resumes."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from support import over_corpus
from support.edges import history
from support.racing import machine, race, run_history_sql

from ponder import aresearch, aresume
from ponder.core.errors import RunBusyError, StorageError
from ponder.interfaces.cli import main
from ponder.testing import Rig


@pytest.fixture
def shared(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PONDER_DATABASE_URL", postgres_url)
    return postgres_url


def on_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    """Another data folder: nothing local is shared, only the database."""
    monkeypatch.setenv("PONDER_DATA_DIR", str(tmp_path / name))


async def test_a_run_is_listed_and_read_from_another_data_folder(
    shared: str, rig: Rig, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_machine(monkeypatch, tmp_path, "a")
    report = await aresearch("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    assert not (tmp_path / "a" / "checkpoints.sqlite").exists()  # nothing went to SQLite
    on_machine(monkeypatch, tmp_path, "b")
    record = history().get(report.thread_id)
    assert record is not None and record.status == "done"
    with psycopg.connect(shared) as conn:
        threads = conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
    assert (report.thread_id,) in threads


async def test_a_run_another_machine_holds_needs_force(
    shared: str, rig: Rig, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = await aresearch("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    with psycopg.connect(shared) as conn:  # as if gpu-box had claimed it a moment ago
        conn.execute(
            "UPDATE ponder_runs SET status = 'running', host = 'gpu-box', pidspace = 'its own',"
            " lease = EXTRACT(EPOCH FROM now()) + 60 WHERE thread_id = %s",
            (report.thread_id,),
        )
    with pytest.raises(RunBusyError, match=r"running on gpu-box.*runs out in \d+ s.*--force"):
        await aresume(report.thread_id)
    again = await aresume(report.thread_id, force=True)
    assert again.markdown == report.markdown  # finished already: read back, not redone


async def test_a_follow_up_is_a_turn_every_machine_reads_back(
    shared: str, rig: Rig, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ponder.api import history as api_history
    from ponder.api import stream_followup

    on_machine(monkeypatch, tmp_path, "a")
    first = await aresearch("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    follow = "What do harbour pilots read?"
    second = [item async for item in stream_followup(first.thread_id, follow)][-1]
    on_machine(monkeypatch, tmp_path, "b")
    record = history().get(first.thread_id)
    assert record is not None and record.topic == "How do tides work?"
    assert record.questions == ["How do tides work?", follow]
    turns = await api_history.turns(first.thread_id)
    assert [t.report.markdown for t in turns if t.report] == [
        first.markdown,
        second.markdown,  # type: ignore[union-attr]
    ]
    # A database from before turns were kept: its runs are one turn each.
    with psycopg.connect(shared) as conn:
        conn.execute("DROP TABLE ponder_turns")
    assert [t.question for t in history().turns(first.thread_id)] == ["How do tides work?"]
    assert history().follow_up(first.thread_id, "And in lakes?", {})[0] == 2


def test_of_machines_resuming_one_run_at_once_exactly_one_runs_it(shared: str) -> None:
    history().start("t", "How do tides work?", {})
    history().finish("t", "interrupted")
    for _ in range(5):
        claimants = [machine(f"box-{n}") for n in range(8)]
        won, lost = race([lambda h=h: h.start("t", "How do tides work?", {}) for h in claimants])
        assert len(won) == 1 and len(lost) == 7
        record = history().get("t")
        assert record is not None and record.status == "running"
        assert all(f"running on {record.host} (since" in str(refused) for refused in lost)
        assert history().finish("t", "interrupted", claim=won[0])
    history().finish("t", "done")
    won, lost = race([lambda h=h: h.follow_up("t", "And lakes?", {}) for h in claimants[:4]])
    assert [turn for turn, _claim in won] == [2] and len(lost) == 3
    assert len(history().turns("t")) == 2


def test_a_dead_machines_run_is_taken_over_once_its_lease_ran_out(shared: str) -> None:
    dead = machine("gpu-box")
    claim = dead.start("t", "How do tides work?", {})
    with pytest.raises(RunBusyError, match="running on gpu-box"):
        machine("laptop").start("t", "How do tides work?", {})  # alive: it holds its lease
    run_history_sql("UPDATE {runs} SET lease = {now} - 1")
    assert machine("laptop").get("t").status == "interrupted"  # type: ignore[union-attr]
    machine("laptop").start("t", "How do tides work?", {})
    assert dead.renew("t", claim) is False
    assert dead.finish("t", "failed", claim=claim) is False
    record = history().get("t")
    assert record is not None and (record.status, record.host) == ("running", "laptop")


@pytest.mark.parametrize(
    "url",
    [
        "host=127.0.0.1 port=9 password=s3cret dbname=ponder",
        "postgresql://bob@127.0.0.1:9/db?password=s3cret",
        "postgresql+psycopg://bob:s3cret@127.0.0.1:9/db",
        "postgresql://bob:s3cret@[::1/db",
    ],
)
def test_no_form_of_database_url_shows_its_password(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_DATABASE_URL", url)
    with pytest.raises(StorageError) as caught:
        history().recent()
    assert "s3cret" not in str(caught.value) and "PONDER_DATABASE_URL" in str(caught.value)
    assert history().finish("any", "failed") is False  # and never raises


def test_an_unreachable_database_is_a_storage_error_without_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PONDER_DATABASE_URL", "postgresql://ponder:s3cret@127.0.0.1:9/ponder")
    with pytest.raises(StorageError, match="PONDER_DATABASE_URL") as caught:
        history().recent()
    assert "s3cret" not in str(caught.value) and "postgresql://ponder@127.0.0.1:9" in str(
        caught.value
    )
    assert main(["runs"]) == StorageError.exit_code
    assert "PostgreSQL" in capsys.readouterr().err
