"""`ponder watch run` on a schedule survives a killed run: the run killed mid-way is recorded
as failed, the next due time runs the watch, and nothing recorded before is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import feedparser
import pytest

from ponder.api import history, watches
from ponder.core.errors import InvalidInputError
from ponder.services.storage.watches import WatchBusy, WatchStore
from ponder.settings.environment import read_environment
from ponder.testing import Rig
from ponder.testing.replies import ScriptedBackend

SRC = Path(__file__).resolve().parents[2] / "src"


def ponder(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ponder", *args],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_killed_run_is_recorded_and_the_next_due_time_runs(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    watch = watches.add(
        "How do tides work?", "1d", model="scripted", ollama_base_url=rig.url,
        search="local", docs=[str(corpus)], mode="loop", max_loops=2,
    )  # fmt: skip
    (first,) = watches.run_due()
    assert first.run is not None and first.run.status == "done"
    assert watches.due() == [], "not due again for a day"

    scripted.delay = 0.5  # a window to kill the next run in
    calls = len(rig.log)
    running = ponder("watch", "run", watch.id)
    try:
        deadline = time.monotonic() + 60
        while len(rig.log) < calls + 2:
            assert running.poll() is None, running.communicate()
            assert time.monotonic() < deadline, "the run made no model call"
            time.sleep(0.05)
        running.send_signal(signal.SIGKILL)
        running.wait(timeout=10)
    finally:
        running.kill()
    killed = watches.runs(watch.id)[-1]
    # Nothing had a chance to record its end; no process holds the watch: it was killed.
    assert (killed.number, killed.status) == (2, "failed")
    assert killed.error is not None and "ended before the run did" in killed.error

    scripted.delay = 0.0
    assert watches.due() == []
    later = killed.started + watch.every
    (next_run,) = watches.run_due(now=later)
    assert next_run.run is not None and next_run.run.number == 3
    kept = watches.runs(watch.id)
    assert [(run.number, run.status) for run in kept] == [(1, "done"), (2, "failed"), (3, "done")]
    assert kept[1].error is not None and "ended before the run did" in kept[1].error
    assert next_run.headline == "Nothing changed.", "compared with run 1, the last that finished"
    assert "compared with run 1" in (watches.changes(watch.id) or "")
    assert watches.changes(watch.id, 1) is not None, "run 1's report is kept"
    for run in kept:  # each run is in the run history too
        assert run.thread_id and history.run(run.thread_id) is not None

    feed = feedparser.parse(watches.feed_path(watch.id).read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    titles = [entry.title for entry in feed.entries]
    assert titles == ["Run 1: first run", "Run 2 failed", "Run 3: nothing changed"]


def test_watch_commands_say_what_to_do(rig: Rig, corpus: Path) -> None:
    added = ponder("watch", "add", "How do tides work?", "--every", "10s", "--docs", str(corpus))
    out, err = added.communicate(timeout=60)
    assert added.returncode == 2 and "between 1m and 365d" in err and "Traceback" not in err
    unknown = ponder("watch", "changes", "nope")
    out, err = unknown.communicate(timeout=60)
    assert unknown.returncode == 2 and "No watch 'nope'" in err
    nothing = ponder("watch", "run")
    out, err = nothing.communicate(timeout=60)
    assert nothing.returncode == 0 and out.strip() == "Nothing is due."
    remote = ponder("watch", "add", "How do tides work?", "--every", "1d", "--server", rig.url)
    out, err = remote.communicate(timeout=60)
    assert remote.returncode == 2 and "leave out --server" in err


def test_a_failed_run_is_recorded_with_its_reason_and_the_watch_goes_on(corpus: Path) -> None:
    from support import closed_address

    with closed_address() as nowhere:
        watch = watches.add(
            "How do tides work?", "1d", model="scripted", ollama_base_url=nowhere,
            search="local", docs=[str(corpus)], mode="loop", max_loops=1,
        )  # fmt: skip
        (failed,) = watches.run_due()
        assert failed.run is not None and failed.run.status == "failed"
        assert failed.run.error and "ollama" in failed.run.error.lower()
        assert watches.due() == [], "the next run waits for its due time"
        (again,) = watches.run_due(force=[watch.id])
    assert again.run is not None and again.run.number == 2 and again.run.status == "failed"
    feed = feedparser.parse(watches.feed_path(watch.id).read_bytes())
    assert [entry.title for entry in feed.entries] == ["Run 1 failed", "Run 2 failed"]
    assert "Run 1 failed:" in feed.entries[0].content[0].value


def test_a_watch_is_refused_while_runs_go_to_an_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_SERVER", "http://127.0.0.1:9")
    with pytest.raises(InvalidInputError, match="run `ponder watch` without it"):
        watches.add("How do tides work?", "1d")


def test_a_callers_watch_is_asked_again_of_the_operators_settings_at_each_run(
    rig: Rig, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in (
        ("MODEL", "scripted"),
        ("OLLAMA_BASE_URL", rig.url),
        ("SEARCH", "local"),
        ("DOCS_ROOTS", str(corpus)),
        ("UI_TOKENS", "alice=a-secret"),
    ):
        monkeypatch.setenv(f"PONDER_{name}", value)  # fmt: skip
    asked = {"docs": [str(corpus)], "max_loops": 1}
    watch = watches.add("How do tides work?", "1d", owner="alice", asked=asked, **asked)
    (ran,) = watches.run_due()
    assert ran.run is not None and ran.run.status == "done"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(elsewhere))  # the operator withdrew it
    (refused,) = watches.run_due(force=[watch.id])
    assert refused.run is not None and refused.run.status == "failed"
    assert refused.run.error and "docs" in refused.run.error
    assert str(corpus) not in refused.run.error, "a caller is not told the server's paths"

    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(corpus))
    monkeypatch.setenv("PONDER_UI_TOKENS", "bob=b-secret")  # alice is no longer a user
    (gone,) = watches.run_due(force=[watch.id])
    assert gone.run is not None and gone.run.error and "alice is no longer" in gone.run.error


def test_intervals_are_bounded_and_a_running_watch_is_not_removed(corpus: Path) -> None:
    for every in ("30s", "9" * 400, "400d"):
        with pytest.raises(InvalidInputError, match="between 1m and 365d"):
            watches.add("How do tides work?", every)
    watch = watches.add("How do tides work?", "1d", docs=[str(corpus)])
    store = WatchStore(read_environment().machine)
    with store.running(watch.id), pytest.raises(WatchBusy, match="running now"):
        watches.remove(watch.id)
    watches.remove(watch.id)
    assert watches.watches() == []


def test_a_record_half_written_by_a_killed_process_loses_no_later_one(corpus: Path) -> None:
    watch = watches.add("How do tides work?", "1d", docs=[str(corpus)])
    store = WatchStore(read_environment().machine)
    with store.running(watch.id):
        first = store.begin(watch.id, "thread-1")
    record = store.root / watch.id / "runs.jsonl"
    record.write_bytes(record.read_bytes() + b'{"number": 1, "status": "do')  # cut short
    with store.running(watch.id):  # the next run records the first as killed
        store.begin(watch.id, "thread-2")
    kept = store.runs(watch.id)
    assert [(run.number, run.thread_id) for run in kept] == [(1, "thread-1"), (2, "thread-2")]
    assert kept[0].status == "failed" and first.number == 1
