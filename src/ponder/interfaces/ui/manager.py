"""The UI's runs: owned by the server, not by a tab.

Each run is an asyncio task in the server's loop. Everything it reports is appended to the
run's numbered event log, which every open tab follows: a tab that connects (or reconnects
with ``Last-Event-ID``) gets the events after the last one it saw, then the live ones, so a
reload shows no gap and no duplicate. The log is also written to the UI's store, so a run's
page replays after the server restarts. Stop cancels the task (the run's checkpoint keeps
every finished step, and Resume goes on from it); a clarifying question ends the task as
``waiting`` until the page's answer resumes it.

A run is a thread of turns (its question, then each follow-up): one log holds them all,
and the "running" status that starts a follow-up names its turn, so the page replays the
latest turn's events only (:func:`ponder.interfaces.ui.threads.turn_began`).

A caller (not the operator) has at most ``limit`` runs live at once: starting, resuming or
following up one more is refused until one ends (:func:`ponder.settings.ceilings.too_many_runs`).
Every live run is a task here, so the count is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine
from dataclasses import dataclass, field
from typing import Any

from ponder import api
from ponder.core.errors import ClarificationNeeded, InvalidInputError, PonderError
from ponder.core.events import ProgressEvent
from ponder.core.result import Report, report_numbers
from ponder.interfaces.ui import store
from ponder.settings.ceilings import too_many_runs

FLUSH_SECONDS = 0.5  # how often new events are written to the store


@dataclass
class Run:
    """One run's log, live or loaded from the store."""

    thread_id: str
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    by: str = ""  # the user who started (or resumed) its task: whose live run it is
    unsaved: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    ended: bool = False  # its task logged how it ended: saving the log is all that is left

    @property
    def live(self) -> bool:
        return self.task is not None and not self.task.done() and not self.ended

    @property
    def next_seq(self) -> int:
        return self.events[-1][0] + 1 if self.events else 1

    def add(self, event: dict[str, Any]) -> None:
        entry = (self.next_seq, {**event, "at": round(time.time(), 4)})  # when the server had it
        self.events.append(entry)
        self.unsaved.append(entry)
        self.notify()

    def notify(self) -> None:
        """Wake every follower (each keeps its own place by seq)."""
        self.changed.set()
        self.changed = asyncio.Event()


class RunManager:
    """Starts, follows, stops and resumes the UI's runs."""

    def __init__(self) -> None:
        self._runs: dict[str, Run] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._saving = asyncio.Lock()
        # Runs this process runs for a user that it does not drive (a watch's): they count
        # against the user's limit as their own runs do.
        self._besides: dict[str, asyncio.Task[Any]] = {}

    async def close(self) -> None:
        """Stop every live run (each is kept as interrupted, resumable) and save the logs."""
        for run in self._runs.values():
            if run.live:  # an ended run's task is only saving its log: it finishes
                assert run.task is not None
                run.task.cancel()
        for besides in self._besides.values():  # a watch's run: recorded as stopped
            besides.cancel()
        tasks = [run.task for run in self._runs.values() if run.task is not None]
        tasks += list(self._besides.values())
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
        await self.flush()

    def run(self, thread_id: str) -> Run:
        if thread_id not in self._runs:
            self._runs[thread_id] = Run(thread_id, events=store.events(thread_id))
        return self._runs[thread_id]

    def is_live(self, thread_id: str) -> bool:
        run = self._runs.get(thread_id)
        return run is not None and run.live

    def live_runs(self, user: str) -> int:
        driven = sum(1 for run in self._runs.values() if run.live and run.by == user)
        besides = sum(1 for key, task in self._besides.items() if key.startswith(f"{user}\0"))
        return driven + besides

    def start_besides(
        self, key: str, user: str, work: Coroutine[Any, Any, Any], limit: int | None
    ) -> asyncio.Task[Any]:
        """Run ``work`` (a watch's run) for ``user``, held to their ``limit`` of live runs
        with their other runs; refused while the same ``key`` still runs."""
        name = f"{user}\0{key}"
        if name in self._besides:
            work.close()
            raise InvalidInputError("This is running already.")
        try:
            self._room_for(user, limit)
        except PonderError:
            work.close()
            raise
        task = asyncio.create_task(work)
        self._besides[name] = task
        task.add_done_callback(lambda _task: self._besides.pop(name, None))
        return task

    def start(
        self,
        topic: str,
        options: dict[str, Any],
        owner: str,
        limit: int | None = None,
        asked: dict[str, Any] | None = None,
    ) -> str:
        """Start a run for ``owner``; ``limit``: the most runs they may have live (None:
        the operator, held to none); ``asked``: what a caller asked for, kept so that a
        follow-up is vetted again from it."""
        self._room_for(owner, limit)
        thread_id = api.new_thread_id()
        store.set_owner(thread_id, owner)
        if asked is not None:
            store.set_asked(thread_id, asked)
        self._launch(thread_id, api.stream(topic, thread_id=thread_id, **options), owner, turn=1)
        return thread_id

    def resume(
        self,
        thread_id: str,
        answer: str | None = None,
        by: str = "",
        limit: int | None = None,
        anew: dict[str, Any] | None = None,
        turn: int = 1,
    ) -> None:
        """Go on with a run (``turn``: its latest): with its stored settings, or ``anew``
        with these (a caller's, vetted again today)."""
        self._room_for(by, limit)
        fresh = {"anew": True, **anew} if anew is not None else {}
        self._launch(thread_id, api.stream_resume(thread_id, answer, **fresh), by, turn=turn)

    def follow_up(
        self,
        thread_id: str,
        question: str,
        by: str = "",
        limit: int | None = None,
        anew: dict[str, Any] | None = None,
        turn: int = 2,
    ) -> None:
        """Ask a follow-up on a finished run: its next turn, ``turn``. An empty or too long
        question is refused here, before anything starts."""
        question = api.clean_topic(question)
        self._room_for(by, limit)
        fresh = {"anew": True, **anew} if anew is not None else {}
        items = api.stream_followup(thread_id, question, **fresh)
        self._launch(thread_id, items, by, turn=turn, question=question)

    def _room_for(self, user: str, limit: int | None) -> None:
        live = self.live_runs(user)
        if limit is not None and live >= limit:
            raise too_many_runs(live, limit)

    def stop(self, thread_id: str) -> bool:
        run = self._runs.get(thread_id)
        if run is None or not run.live:
            return False
        assert run.task is not None
        run.task.cancel()
        return True

    async def forget(self, thread_id: str) -> None:
        run = self._runs.pop(thread_id, None)
        if run is not None and run.task is not None:  # an ended run may be saving its log
            await asyncio.gather(run.task, return_exceptions=True)
        await asyncio.to_thread(store.forget, thread_id)

    async def follow(
        self, thread_id: str, after: int = 0
    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """The run's events after ``after``, then live ones until the run ends."""
        run = self.run(thread_id)
        while True:
            waiting = run.changed
            for seq, event in run.events:
                if seq > after:
                    yield seq, event
                    after = seq
            if not run.live:
                return
            await waiting.wait()

    def _launch(
        self,
        thread_id: str,
        items: AsyncGenerator[ProgressEvent | Report, None],
        by: str,
        *,
        turn: int,
        question: str = "",
    ) -> None:
        run = self.run(thread_id)
        if run.live:
            raise InvalidInputError(
                f"Run '{thread_id}' is already running — wait for it or stop it."
            )
        run.by, run.ended = by, False
        # Where a turn begins in the log: the page's live view replays its latest turn only.
        asked = {"question": question} if question else {}
        run.add({"kind": "status", "status": "running", "turn": turn, **asked})
        run.task = asyncio.create_task(self._drive(run, items), name=f"ponder-run-{thread_id}")
        run.task.add_done_callback(lambda _task: run.notify())  # followers see that it ended
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_often())

    async def _drive(self, run: Run, items: AsyncGenerator[ProgressEvent | Report, None]) -> None:
        ending: dict[str, Any] | None = None
        try:
            ending = await _log_progress(run, items)
        except ClarificationNeeded as exc:
            ending = {"status": "waiting", "question": exc.question}
        except asyncio.CancelledError:
            ending = {"status": "interrupted", "message": "stopped"}
            raise
        except PonderError as exc:  # the run's own clear message: what went wrong, what to do
            ending = {"status": "failed", "message": str(exc)}
        except Exception as exc:  # a bug: the page says so, and the server's log has it
            message = f"ponder hit a bug ({type(exc).__name__}: {exc}) — please report it."
            ending = {"status": "failed", "message": message}
            raise
        finally:
            # How the run ended is logged once its generator is closed, and from then on it
            # is not live: a page that shows Resume or Follow up can use it at once, while
            # this task only saves the log.
            if ending is not None:
                run.add({"kind": "status", **ending})
            run.ended = True
            await self.flush()

    async def flush(self) -> None:
        async with self._saving:  # one save at a time: an ended run's last, the next run's
            for run in list(self._runs.values()):
                if run.unsaved:
                    batch, run.unsaved = run.unsaved, []
                    await asyncio.to_thread(store.append_events, run.thread_id, batch)

    async def _flush_often(self) -> None:
        while any(run.live for run in self._runs.values()):
            await asyncio.sleep(FLUSH_SECONDS)
            await self.flush()


async def _log_progress(
    run: Run, items: AsyncGenerator[ProgressEvent | Report, None]
) -> dict[str, Any] | None:
    """Log the run's progress; its ending ("done", with the report's figures), returned
    once the generator is closed: a stopped run's checkpointer lets go of its database
    there, before the page may resume the run."""
    ending: dict[str, Any] | None = None
    async with contextlib.aclosing(items):
        async for item in items:
            if isinstance(item, Report):
                ending = {
                    "status": "done",
                    "stats": item.stats.model_dump(),
                    **report_numbers(item),
                }
            else:
                run.add(item.model_dump())
    return ending
