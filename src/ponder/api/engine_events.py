"""A run's live view and its replay, read from the engine that holds the run (for a door
that is the engine's client, :mod:`ponder.api.engine`).

The page numbers a thread's events 1, 2, 3… (its script and its draft rely on the order),
as a local run's log does. Here the numbers are not kept anywhere: they are each event's
place in the engine's streams of the thread's runs, oldest run first, each stream joined
from its start (``last_event_id="-1"``), so every UI process counts alike. A tab that
reconnects with ``Last-Event-ID: 41`` (to this process or another) gets the replay from the
engine, without the 41 events it has. Each run's events are framed as a local run's are: a
``running`` status first, then its progress, then how it ended (done, with the report's
numbers; waiting on a question; stopped; failed).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from ponder.api import remote
from ponder.api.engine_turns import latest_report, turn_starts
from ponder.core.errors import RemoteServerError
from ponder.core.result import report_numbers

Entry = tuple[int, dict[str, Any]]
LIVE = ("pending", "running")  # a run the engine holds, or is about to
RUNS_READ = 100  # a thread's runs read: each start, stop and answer is one
REJOIN_SECONDS = 0.5  # before joining again a live run's stream that the engine closed


async def thread_events(
    client: Any, server: str, thread_id: str, after: int
) -> AsyncIterator[Entry]:
    """The thread's events after ``after``, then live ones until its newest run ends (and
    any run started meanwhile, by another tab or process)."""
    seq, turn = 0, 1
    joined: set[str] = set()
    async with remote.talking_to(server):
        while True:
            runs = await client.runs.list(thread_id, limit=RUNS_READ)
            fresh = [run for run in _oldest_first(runs) if run["run_id"] not in joined]
            if not fresh:
                return
            thread = await client.threads.get(thread_id)
            starts = turn_starts(dict(thread.get("metadata") or {}))
            for run in fresh:
                joined.add(run["run_id"])
                newest = run is fresh[-1] and len(joined) == len(runs)
                # Where a turn begins: the page's live view replays its latest turn only.
                turn, question = starts.get(run["run_id"], (turn, ""))
                began = {"turn": turn, **({"question": question} if question else {})}
                async for event in _run_events(client, thread_id, run, newest, began):
                    seq += 1
                    if seq > after:
                        yield seq, event


async def _run_events(
    client: Any, thread_id: str, run: dict[str, Any], newest: bool, began: dict[str, Any]
) -> AsyncIterator[dict[str, Any]]:
    yield _stamped({"kind": "status", "status": "running", **began})
    seen = ["-1"]  # the last part's id: the engine may close a live run's stream early
    while True:
        parts = client.runs.join_stream(
            thread_id, run["run_id"], stream_mode=["custom"], last_event_id=seen[0]
        )
        try:
            async for event in remote.progress(client, thread_id, _noting(parts, seen)):
                yield _stamped(event.model_dump())
        except RemoteServerError as exc:  # the run failed there: its own words
            yield _stamped({"kind": "status", "status": "failed", "message": str(exc)})
            return
        status = str((await client.runs.get(thread_id, run["run_id"]))["status"])
        if status not in LIVE:
            break
        await asyncio.sleep(REJOIN_SECONDS)
    yield _stamped(await _how_it_ended(client, thread_id, status, newest))


async def _noting(parts: AsyncIterator[Any], seen: list[str]) -> AsyncGenerator[Any, None]:
    async for part in parts:
        if getattr(part, "id", None):
            seen[0] = str(part.id)
        yield part


async def _how_it_ended(client: Any, thread_id: str, status: str, newest: bool) -> dict[str, Any]:
    said: dict[str, Any] = {"kind": "status"}
    if status == "error":
        message = await remote.failure(client, thread_id, None)
        return {**said, "status": "failed", "message": message}
    if not newest:  # an earlier run on the thread: it paused on a question, or was stopped
        ended = "interrupted" if status == "interrupted" else "waiting"
        return {**said, "status": ended}
    state = await client.threads.get_state(thread_id, subgraphs=True)
    question = remote.question_of(state)  # Aegra calls a pause on a question "interrupted"
    if question is not None:
        return {**said, "status": "waiting", "question": question}
    if status == "interrupted":
        return {**said, "status": "interrupted", "message": "stopped"}
    thread = await client.threads.get(thread_id)
    report = await latest_report(client, thread_id, dict(thread.get("metadata") or {}))
    if report is None:
        return {**said, "status": "interrupted", "message": "ended without a report"}
    return {**said, "status": "done", "stats": report.stats.model_dump(), **report_numbers(report)}


def _oldest_first(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(runs, key=lambda run: remote.epoch(run.get("created_at")))


def _stamped(event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "at": round(time.time(), 4)}
