"""The API for a door that is an engine's client (``PONDER_SERVER``: Aegra, LangGraph Server):
ponder's runs held by the engine, started, stopped, watched, replayed, listed and deleted
through its API (langgraph-sdk), each call as one user, with that user's token.

The door keeps nothing: the engine's auth (:mod:`ponder.interfaces.langgraph_auth`) stamps
each thread with its owner and shows a user their own alone, vets every run's settings,
and counts each user's live runs; Stop is its cancel; the live view and its replay are its
streams (:mod:`.engine_events`). So any number of door processes act as one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ponder.api import engine_turns, remote
from ponder.api.engine_events import LIVE, Entry, thread_events
from ponder.core.errors import InvalidInputError, TooManyRunsError
from ponder.core.topic import clean_topic
from ponder.settings.callers import caller_fields

if TYPE_CHECKING:
    from ponder.api.turns import Turn
    from ponder.services.storage.runs import RunRecord

LISTED_AT_ONCE = 8  # threads whose newest run is read at once, for a listing's statuses


class Engine:
    """The engine at ``server``, as the user whose ``token`` this is."""

    def __init__(self, server: str, token: str | None) -> None:
        self.server = server
        self.client = remote.client_for(server, token)

    async def close(self) -> None:
        """Close its connections (it keeps them open between calls)."""
        await self.client.aclose()

    async def runs(self, limit: int) -> list[RunRecord]:
        """The user's ponder runs, newest first (the engine lists theirs alone; threads of
        another graph on the same engine are not ponder's). Each costs a call for its
        status."""
        async with remote.talking_to(self.server):
            threads = await self.client.threads.search(
                limit=limit, sort_by="updated_at", sort_order="desc"
            )
            ours = [t for t in threads if "ponder_topic" in (t.get("metadata") or {})]
            gate = asyncio.Semaphore(LISTED_AT_ONCE)

            async def newest(thread: dict[str, Any]) -> str | None:
                async with gate:
                    return await self._newest_status(str(thread["thread_id"]))

            statuses = await asyncio.gather(*(newest(thread) for thread in ours))
        return [_record(t, s, None, self.server) for t, s in zip(ours, statuses, strict=True)]

    async def run(self, thread_id: str) -> RunRecord | None:
        """One of the user's runs (None: no such run, or another user's)."""
        async with remote.talking_to(self.server):
            thread = await self._thread(thread_id)
            if thread is None or "ponder_topic" not in (thread.get("metadata") or {}):
                return None
            newest = await self._newest_status(thread_id)
            question = None
            if newest not in LIVE:  # paused on a question (each engine names that its way)?
                state = await self.client.threads.get_state(thread_id, subgraphs=True)
                question = remote.question_of(state)
            message = question
            if question is None and newest == "error":
                message = await remote.failure(self.client, thread_id, None)
            elif question is None and newest == "interrupted":
                message = "stopped"
        record = _record(thread, newest, message, self.server)
        return dataclasses.replace(record, status="waiting") if question else record

    async def live(self, thread_id: str) -> bool:
        async with remote.talking_to(self.server):
            return await self._newest_status(thread_id) in LIVE

    async def start(self, topic: str, options: dict[str, Any]) -> str:
        """Start ``topic`` with what the caller asked for (the engine adds its operator's
        settings); its id. Refused by the engine (its run limit: TooManyRunsError): no trace."""
        async with remote.talking_to(self.server), _refusals():
            # The settings stay with the thread: a resume through any replica runs with them.
            metadata = {"ponder_topic": topic, "ponder_options": options}
            thread = await self.client.threads.create(metadata=metadata)
            thread_id = str(thread["thread_id"])
            try:
                await self._launch(thread_id, options, input={"topic": topic})
            except Exception:
                await self.client.threads.delete(thread_id)
                raise
        return thread_id

    async def resume(self, thread_id: str, topic: str, answer: str | None) -> None:
        """Go on with a stopped run from its last checkpoint, or answer its question."""
        async with remote.talking_to(self.server), _refusals():
            await self._not_running(thread_id)
            options = _options(await self.client.threads.get(thread_id))
            state = await self.client.threads.get_state(thread_id)
            if answer:
                await self._launch(thread_id, options, command={"resume": answer})
            elif resumed := remote.from_checkpoint(state):
                await self._launch(thread_id, options, **resumed)
            else:  # stopped before its first step: start it
                await self._launch(thread_id, options, input={"topic": topic})

    async def follow_up(self, record: RunRecord, question: str) -> int:
        """Ask ``question`` on a finished run: the thread's next turn; its number."""
        question = clean_topic(question)
        async with remote.talking_to(self.server), _refusals():
            await self._not_running(record.thread_id)
            if record.status != "done":
                raise InvalidInputError(
                    f"This run is {record.status}: a follow-up builds on a finished run. "
                    "Wait for it to finish (or press Resume), then ask again."
                )
            thread = await self.client.threads.get(record.thread_id)
            state = await self.client.threads.get_state(record.thread_id)
            ended = engine_turns.checkpoint_of(state)  # where the finished turn ended
            chat = {"messages": [{"role": "user", "content": question}]}
            run = await self._launch(record.thread_id, _options(thread), input=chat)
            metadata = dict(thread.get("metadata") or {})
            later = [*engine_turns.follow_ups(metadata), {
                "question": question, "run": run["run_id"], "after": ended,
            }]  # fmt: skip
            await self.client.threads.update(
                record.thread_id, metadata={**metadata, engine_turns.TURNS_KEY: later}
            )
        return len(later) + 1

    async def turns(self, record: RunRecord, only: int | None = None) -> list[Turn]:
        """The run's turns, each with its report (:mod:`.engine_turns`)."""
        async with remote.talking_to(self.server):
            thread = await self.client.threads.get(record.thread_id)
            metadata = dict(thread.get("metadata") or {})
            return await engine_turns.read_turns(self.client, record, metadata, only)

    async def trail(self, record: RunRecord, turn: int | None) -> dict[str, Any] | None:
        """The JSON trail, as a local run's (:func:`ponder.api.history.trail`): every turn,
        or one; what was read, as the thread stands now."""
        from ponder.api.turns import trail_data

        turns = [t for t in await self.turns(record, turn) if turn in (None, t.number)]
        if not turns:
            return None
        return trail_data(record, turns, await self.state(record.thread_id))

    async def stop(self, thread_id: str) -> bool:
        """Cancel the thread's live runs (whichever replica holds them); False: none was."""
        stopped = False
        async with remote.talking_to(self.server):
            for status in LIVE:
                for run in await self.client.runs.list(thread_id, status=status):
                    await self.client.runs.cancel(thread_id, run["run_id"], wait=True)
                    stopped = True
        return stopped

    async def delete(self, thread_id: str) -> None:
        if await self.live(thread_id):
            raise InvalidInputError("This run is still running — stop it before deleting it.")
        async with remote.talking_to(self.server):
            await self.client.threads.delete(thread_id)

    def events(self, thread_id: str, after: int) -> AsyncIterator[Entry]:
        """The run's events after the ``after``-th, then live ones until it ends."""
        return thread_events(self.client, self.server, thread_id, after)

    async def state(self, thread_id: str) -> dict[str, Any]:
        """The thread's latest values (what it read and wrote so far)."""
        async with remote.talking_to(self.server):
            state = await self.client.threads.get_state(thread_id)
        return dict(state.get("values") or {})

    async def _thread(self, thread_id: str) -> dict[str, Any] | None:
        try:
            return dict(await self.client.threads.get(thread_id))
        except Exception as exc:  # the SDK's HTTP error: another user's thread is not found
            if remote.status_code(exc) in (403, 404, 422):
                return None
            raise

    async def _not_running(self, thread_id: str) -> None:
        if await self._newest_status(thread_id) in LIVE:  # the engine would run it twice
            raise InvalidInputError(
                f"Run '{thread_id}' is already running — wait for it or stop it."
            )

    async def _newest_status(self, thread_id: str) -> str | None:
        runs = await self.client.runs.list(thread_id, limit=1)
        return str(runs[0]["status"]) if runs else None

    async def _launch(
        self, thread_id: str, options: dict[str, Any], **start: Any
    ) -> dict[str, Any]:
        """A background run, its stream kept for every tab (any process's) to join."""
        return await self.client.runs.create(
            thread_id,
            remote.GRAPH,
            **start,
            config={"configurable": options},
            stream_mode=["custom"],
            stream_subgraphs=True,
            stream_resumable=True,
        )


async def remote_runs(server: str, token: str | None, limit: int = 20) -> list[RunRecord]:
    """The server's ponder runs, newest first, as run records (``token``: as for
    :func:`ponder.api.remote.stream_remote`), for `ponder runs --server`."""
    engine = Engine(server, token)
    try:
        return await engine.runs(limit)
    finally:
        await engine.close()


@contextlib.asynccontextmanager
async def _refusals() -> AsyncIterator[None]:
    """The engine's "too many runs of yours" (429) as ponder's own (a door answers 429)."""
    try:
        yield
    except Exception as exc:  # the SDK's HTTP error
        if remote.status_code(exc) == 429:
            raise TooManyRunsError(remote.detail_of(exc)) from None
        raise


def _options(thread: dict[str, Any]) -> dict[str, Any]:
    """What the caller asked for when the run began (a resume or a follow-up runs with it,
    vetted again by the engine), a caller's fields alone."""
    stored = dict((thread.get("metadata") or {}).get("ponder_options") or {})
    return {key: value for key, value in stored.items() if key in caller_fields()}


def _record(
    thread: dict[str, Any], newest_run: str | None, message: str | None, server: str
) -> RunRecord:
    from ponder.services.storage.runs import RunRecord

    metadata = dict(thread.get("metadata") or {})
    return RunRecord(
        thread_id=str(thread["thread_id"]),
        topic=str(metadata["ponder_topic"]),
        config=_options(thread),
        status=remote.status_of(str(thread.get("status")), newest_run),
        created=remote.epoch(thread.get("created_at")),
        updated=remote.epoch(thread.get("updated_at")),
        output=None,
        message=message,
        host=server,
        elsewhere=True,
        questions=engine_turns.questions(metadata),
    )
