"""The UI's runs when an engine holds them (``PONDER_SERVER``: Aegra, LangGraph Server).

Then `ponder ui` keeps no run of its own: each call goes to the engine
(:class:`ponder.api.engine.Engine`) as the user who asked, with that user's engine token
(:func:`ponder.interfaces.tokens.engine_token`). So whatever the engine refuses a caller
(another user's thread, a setting only its operator sets, a run beyond ``caller_runs``) the
page refuses too, and any number of UI processes behind a load balancer behave as one: a run
started through one is watched, stopped and deleted through another. Everyone is one of the
engine's callers here, the UI's operator too (with ``PONDER_SERVER_TOKEN``): the engine's
operator settings are set on the engine.

A follow-up is the thread's next turn on the engine (:mod:`ponder.api.engine_turns`). The
documents page stays out: documents are indexed where the engine runs, and the page says
so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ponder.api.engine import Engine
from ponder.api.engine_events import Entry
from ponder.api.history import Turn
from ponder.core.result import Report
from ponder.interfaces.tokens import engine_token
from ponder.interfaces.ui.access import OPERATOR, User
from ponder.settings.environment import Environment

LISTED = 100  # the newest runs a page lists (and history search searches): a call each


class EngineRuns:
    """Runs held by the engine at ``server``, each call made as the user who asked."""

    one_process = False
    follow_ups = True

    def __init__(self, server: str, environment: Environment) -> None:
        self.server = server
        self.environment = environment
        self._engines: dict[str, Engine] = {}  # per token: its connections, kept open

    async def close(self) -> None:
        engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            await engine.close()

    def _as(self, user: User) -> Engine:
        name = None if user.name == OPERATOR else user.name  # the operator: PONDER_SERVER_TOKEN
        token = engine_token(self.environment, name)
        if token not in self._engines:
            self._engines[token] = Engine(self.server, token)
        return self._engines[token]

    async def records(self, user: User, limit: int) -> list[Any]:
        return await self._as(user).runs(min(limit, LISTED))

    async def record(self, user: User, thread_id: str) -> Any:
        return await self._as(user).run(thread_id)

    async def live(self, user: User, record: Any) -> bool:
        return bool(record.status == "running")  # its newest run is pending or running

    async def start(
        self, user: User, topic: str, options: dict[str, Any], asked: dict[str, Any]
    ) -> str:
        """The engine is sent what the caller ``asked``: it adds its operator's settings
        itself, as ``options`` holds this process's."""
        return await self._as(user).start(topic, asked)

    async def resume(self, user: User, record: Any, answer: str | None) -> None:
        await self._as(user).resume(record.thread_id, record.topic, answer)

    async def follow_up(self, user: User, record: Any, question: str) -> int:
        return await self._as(user).follow_up(record, question)

    async def stop(self, user: User, thread_id: str) -> bool:
        return await self._as(user).stop(thread_id)

    async def delete(self, user: User, thread_id: str) -> None:
        await self._as(user).delete(thread_id)

    def follow(self, user: User, thread_id: str, after: int) -> AsyncIterator[Entry]:
        return self._as(user).events(thread_id, after)

    async def log(self, user: User, record: Any) -> list[Entry]:
        """Every event of a run that is not live (a live run's stream ends with it, so its
        page replays it instead)."""
        if await self.live(user, record):
            return []
        return [entry async for entry in self.follow(user, record.thread_id, 0)]

    async def turns(self, user: User, record: Any, only: int | None = None) -> list[Turn]:
        return await self._as(user).turns(record, only)

    async def reports(self, user: User, record: Any, turn: int | None) -> list[Report]:
        turns = await self.turns(user, record, turn)
        chosen = [t for t in turns if turn in (None, t.number)]
        return [t.report for t in chosen if t.report is not None]

    async def trail(self, user: User, record: Any, turn: int | None) -> dict[str, Any] | None:
        return await self._as(user).trail(record, turn)
