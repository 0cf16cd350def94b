"""The UI's runs when this process holds them (no ``PONDER_SERVER``): its tasks
(:mod:`.manager`), the run history and checkpoints on this machine, and who started each
run (:mod:`.store`). One process: a second `ponder ui` on the same database does not see
this one's live runs, so its operator runs one (or serves the runs from an engine).

:class:`.engine_runs.EngineRuns` answers the same calls from an engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from ponder.api import history
from ponder.core.errors import InvalidInputError
from ponder.core.result import Report
from ponder.interfaces.ui import store
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.asking import continued
from ponder.interfaces.ui.manager import RunManager
from ponder.interfaces.ui.pages import STATUS_WORDS
from ponder.settings.callers import operator_configuration

Entry = tuple[int, dict[str, Any]]


class LocalRuns:
    """This process's runs, each user held to their own (the operator sees them all)."""

    one_process = True
    follow_ups = True

    def __init__(self, manager: RunManager | None = None) -> None:
        self.manager = manager or RunManager()

    async def close(self) -> None:
        await self.manager.close()

    async def records(self, user: User, limit: int) -> list[Any]:
        return visible(user, history.runs(limit))

    async def record(self, user: User, thread_id: str) -> Any:
        record = history.run(thread_id)
        return record if record is not None and visible(user, [record]) else None

    async def live(self, user: User, record: Any) -> bool:
        return self.manager.is_live(record.thread_id)

    async def start(
        self, user: User, topic: str, options: dict[str, Any], asked: dict[str, Any]
    ) -> str:
        kept = None if user.operator else asked  # a caller's follow-up is vetted from it
        return self.manager.start(topic, options, user.name, run_limit(user), kept)

    async def resume(self, user: User, record: Any, answer: str | None) -> None:
        anew = await asyncio.to_thread(continued, user, record.thread_id, record.config)
        self.manager.resume(
            record.thread_id, answer, user.name, run_limit(user), anew, turn=record.turns
        )

    async def follow_up(self, user: User, record: Any, question: str) -> int:
        """Ask ``question`` on a finished run: its next turn's number."""
        anew = await asyncio.to_thread(continued, user, record.thread_id, record.config)
        _finished(record.status, self.manager.is_live(record.thread_id))
        turn = record.turns + 1
        self.manager.follow_up(
            record.thread_id, question, user.name, run_limit(user), anew, turn=turn
        )
        return turn

    async def stop(self, user: User, thread_id: str) -> bool:
        if not self.manager.stop(thread_id):
            return False
        for _ in range(50):  # wait (briefly) for the cancelled run to record that it stopped
            if not self.manager.is_live(thread_id):
                break
            await asyncio.sleep(0.05)
        return True

    async def delete(self, user: User, thread_id: str) -> None:
        if self.manager.is_live(thread_id):
            raise InvalidInputError("This run is still running — stop it before deleting it.")
        await history.delete(thread_id)
        await self.manager.forget(thread_id)

    def follow(self, user: User, thread_id: str, after: int) -> AsyncIterator[Entry]:
        return self.manager.follow(thread_id, after)

    async def log(self, user: User, record: Any) -> list[Entry]:
        return list(self.manager.run(record.thread_id).events)

    async def turns(self, user: User, record: Any, only: int | None = None) -> list[Any]:
        return await history.turns(record.thread_id, only=only)

    async def reports(self, user: User, record: Any, turn: int | None) -> list[Report]:
        return await history.reports(record.thread_id, turn)

    async def trail(self, user: User, record: Any, turn: int | None) -> dict[str, Any] | None:
        return await history.trail(record.thread_id, turn)


def run_limit(user: User) -> int | None:
    """How many runs the user may have live at once: a caller's ``caller_runs``; the
    operator, any number."""
    return None if user.operator else operator_configuration().caller_runs


def visible(user: User, records: list[Any]) -> list[Any]:
    if user.operator:
        return records
    owned = store.owners()
    return [r for r in records if owned.get(r.thread_id) == user.name]


def _finished(status: str, live: bool) -> None:
    """A follow-up builds on a finished run: another tab may still offer the form."""
    if live or status != "done":
        now = "still running" if live else STATUS_WORDS.get(status, status)
        raise InvalidInputError(
            f"This run is {now}: a follow-up builds on a finished run. "
            "Wait for it to finish (or press Resume), then ask again."
        )
