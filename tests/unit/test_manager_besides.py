"""A watch's run started from `ponder ui` counts against its user's limit of live runs, as
their own runs do, and runs once at a time."""

from __future__ import annotations

import asyncio

import pytest

from ponder.core.errors import InvalidInputError, TooManyRunsError
from ponder.interfaces.ui.manager import RunManager


async def test_a_watch_run_holds_one_of_the_users_run_slots_while_it_runs() -> None:
    manager = RunManager()
    gate = asyncio.Event()
    task = manager.start_besides("w1", "alice", gate.wait(), limit=1)
    assert manager.live_runs("alice") == 1 and manager.live_runs("bob") == 0
    with pytest.raises(TooManyRunsError):
        manager.start("How do tides work?", {}, "alice", limit=1)
    with pytest.raises(InvalidInputError, match="running already"):
        manager.start_besides("w1", "alice", gate.wait(), limit=None)
    gate.set()
    await task
    await asyncio.sleep(0)
    assert manager.live_runs("alice") == 0, "its slot is given back when it ends"
    await manager.close()
