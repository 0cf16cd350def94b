"""A run of `ponder ui` is over for the page as soon as it has logged how it ended: a page
that shows Resume after a Stop can resume at once, though the stopped run's task is still
saving its log, and every event is saved once; a Delete at that moment waits for the save,
so nothing comes back after it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from ponder.core.events import ProgressEvent
from ponder.interfaces.ui import manager as manager_module
from ponder.interfaces.ui import store
from ponder.interfaces.ui.manager import RunManager


async def _working(*_args: Any, **_kwargs: Any) -> AsyncIterator[ProgressEvent]:
    for round_number in range(1, 1000):
        yield ProgressEvent(kind="round_start", data={"round": round_number})
        await asyncio.sleep(0.01)


async def _status_logged(manager: RunManager, thread_id: str, status: str) -> None:
    """Wait, as the page does, for the run's log to say ``status``."""
    for _ in range(500):
        if any(event.get("status") == status for _, event in manager.run(thread_id).events):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the run never logged {status!r}")


@pytest.fixture
async def stopped(monkeypatch: pytest.MonkeyPatch) -> tuple[RunManager, str]:
    """A run stopped a moment ago, as the page shows it, on a slow disk: its task is
    still saving its log."""
    save = store.append_events

    def slow_save(thread_id: str, batch: list[tuple[int, dict[str, Any]]]) -> None:
        time.sleep(0.3)  # a loaded machine's disk
        save(thread_id, batch)

    monkeypatch.setattr(store, "append_events", slow_save)
    monkeypatch.setattr(manager_module.api, "stream", _working)
    monkeypatch.setattr(manager_module.api, "stream_resume", _working)
    manager = RunManager()
    thread_id = manager.start("How do tides work?", {}, "alice")
    await asyncio.sleep(0.1)
    assert manager.stop(thread_id)
    await _status_logged(manager, thread_id, "interrupted")
    return manager, thread_id


async def test_resume_right_after_stop_is_taken_while_the_stopped_run_saves_its_log(
    stopped: tuple[RunManager, str],
) -> None:
    manager, thread_id = stopped
    assert not manager.is_live(thread_id), "stopped: the page may resume it"
    manager.resume(thread_id, by="alice")  # refused as "already running" before the fix
    assert manager.is_live(thread_id)

    await asyncio.sleep(0.1)
    await manager.close()
    seqs = [seq for seq, _ in store.events(thread_id)]
    assert seqs == list(range(1, len(seqs) + 1)), "every event saved once, in order"
    statuses = [e["status"] for _, e in store.events(thread_id) if e["kind"] == "status"]
    assert statuses == ["running", "interrupted", "running", "interrupted"]


async def test_a_run_deleted_while_its_log_is_still_being_saved_leaves_nothing_behind(
    stopped: tuple[RunManager, str],
) -> None:
    manager, thread_id = stopped
    await manager.forget(thread_id)  # the page's Delete, as soon as Stop showed
    await manager.close()
    assert store.events(thread_id) == [], "no saved event came back after the delete"
