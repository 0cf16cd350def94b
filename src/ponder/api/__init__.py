"""The Python API: research, aresearch, stream, resume.

Every run is checkpointed in SQLite under the user's data directory, so a run that was
interrupted (Ctrl-C, a closed terminal, SIGKILL) is finished by ``resume(thread_id)``.

Each call is an edge: it reads the machine's settings and the keys from the environment
once (:func:`~ponder.settings.environment.read_environment`) and passes them down.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ponder.api.runner import Ask, drive, new_thread_id, warm_up
from ponder.core.errors import ClarificationNeeded, InvalidInputError, RunNotFoundError
from ponder.core.events import ProgressEvent
from ponder.core.redact import was_redacted
from ponder.core.result import Report
from ponder.core.topic import MAX_TOPIC_CHARS, clean_topic
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment
from ponder.settings.machine import Machine

__all__ = [
    "MAX_TOPIC_CHARS",
    "ClarificationNeeded",
    "aresearch",
    "aresume",
    "clean_topic",
    "new_thread_id",
    "research",
    "resume",
    "stream",
    "stream_followup",
    "stream_resume",
    "warm_up",
]


def research(
    topic: str,
    *,
    thread_id: str | None = None,
    ask: Ask | None = None,
    server: str | None = None,
    **config: Any,
) -> Report:
    """Research ``topic`` and return a cited :class:`Report` (blocking).

    Keyword arguments are :class:`Configuration` fields (``model``, ``search``, ``docs``…).
    ``ask`` answers a clarifying question; without it a question raises
    :class:`ClarificationNeeded`, and ``resume(thread_id, answer)`` continues. ``server``
    (or ``PONDER_SERVER``) runs the research on a LangGraph Server (see ``ponder.api.remote``).
    """
    return _run_sync(aresearch(topic, thread_id=thread_id, ask=ask, server=server, **config))


async def aresearch(
    topic: str,
    *,
    thread_id: str | None = None,
    ask: Ask | None = None,
    server: str | None = None,
    **config: Any,
) -> Report:
    """Async :func:`research`."""
    return await _last_report(stream(topic, thread_id=thread_id, ask=ask, server=server, **config))


async def stream(
    topic: str,
    *,
    thread_id: str | None = None,
    ask: Ask | None = None,
    server: str | None = None,
    token: str | None = None,
    **config: Any,
) -> AsyncGenerator[ProgressEvent | Report, None]:
    """Yield :class:`ProgressEvent` objects while researching, then the :class:`Report`.
    ``token``: on a server, the caller's (else ``PONDER_SERVER_TOKEN``)."""
    clean = clean_topic(topic)
    environment = read_environment()
    if server := server_url(server, environment.machine):
        from ponder.api.remote import stream_remote

        token = token or environment.secret("PONDER_SERVER_TOKEN")
        async for item in stream_remote(server, clean, token=token, ask=ask, **config):
            yield item
        return
    settings = Configuration.create(**config)
    thread = thread_id or new_thread_id()
    from ponder.services.storage.runs import RunHistory

    runs = RunHistory(environment.machine)
    if thread_id is not None and runs.get(thread_id) is not None:
        raise InvalidInputError(
            f"A run with id '{thread_id}' already exists — continue it with "
            f"resume('{thread_id}') (`ponder resume {thread_id}`) or choose a new thread_id."
        )
    claim = runs.start(thread, clean, settings.model_dump())
    first = {"topic": clean}
    async for item in drive(thread, clean, settings, environment, first, ask, claim=claim):
        yield item


def resume(
    thread_id: str,
    answer: str | None = None,
    *,
    ask: Ask | None = None,
    force: bool = False,
    server: str | None = None,
    **config: Any,
) -> Report:
    """Finish an interrupted or paused run (blocking).

    Keyword config overrides the run's saved settings from here on, e.g.
    ``resume(id, ollama_base_url="http://gpu-box:11434")`` when Ollama moved. A run another
    process holds is refused (:class:`~ponder.core.errors.RunBusyError`) until
    its claim runs out; ``force`` takes it at once (that process stops at its next step).
    ``server`` follows a run on a LangGraph Server instead.
    """
    return _run_sync(aresume(thread_id, answer, ask=ask, force=force, server=server, **config))


async def aresume(
    thread_id: str,
    answer: str | None = None,
    *,
    ask: Ask | None = None,
    force: bool = False,
    server: str | None = None,
    **config: Any,
) -> Report:
    """Async :func:`resume`."""
    events = stream_resume(thread_id, answer, ask=ask, force=force, server=server, **config)
    return await _last_report(events)


async def _last_report(events: AsyncIterator[ProgressEvent | Report]) -> Report:
    """The Report a stream ends with; its progress events are passed over."""
    report: Report | None = None
    async for item in events:
        if isinstance(item, Report):
            report = item
    assert report is not None
    return report


async def stream_resume(
    thread_id: str,
    answer: str | None = None,
    *,
    ask: Ask | None = None,
    force: bool = False,
    server: str | None = None,
    anew: bool = False,
    token: str | None = None,
    **config: Any,
) -> AsyncGenerator[ProgressEvent | Report, None]:
    """Like :func:`stream`, for a run that already has a checkpoint. Its settings are the
    ones it stored, ``config`` over them; ``anew``: ``config`` over today's environment
    instead (a served caller's continuation, its options vetted again today); ``token``:
    as for :func:`stream`."""
    from langgraph.types import Command

    from ponder.services.storage.runs import RunHistory

    environment = read_environment()
    if server := server_url(server, environment.machine):
        from ponder.api.remote import stream_remote_resume

        token = token or environment.secret("PONDER_SERVER_TOKEN")
        events = stream_remote_resume(server, thread_id, answer, token=token, ask=ask, **config)
        async for item in events:
            yield item
        return

    runs = RunHistory(environment.machine)
    record = runs.get(thread_id)
    if record is None:
        raise RunNotFoundError(thread_id)
    settings = _continued(record.config, config, anew)
    # The claim, not the record read above, decides: of two processes resuming at once,
    # here or on machines sharing a database, one runs it and the other is told who does.
    claim = runs.start(thread_id, record.topic, settings.model_dump(), force=force)
    kept = runs.turns(thread_id)
    question = kept[-1].question  # the turn that goes on: the latest
    before = kept[-2].checkpoint_id if len(kept) > 1 else None  # its cost starts there
    first: Any = Command(resume=answer) if answer is not None else None
    going = drive(thread_id, question, settings, environment, first, ask, claim=claim, after=before)
    async for item in going:
        yield item


async def stream_followup(
    thread_id: str, question: str, *, ask: Ask | None = None, anew: bool = False, **config: Any
) -> AsyncGenerator[ProgressEvent | Report, None]:
    """A follow-up question on a finished run: it builds on the sources and findings that
    run kept, and its report answers the new question. It is the thread's next turn: the
    run keeps its first question as its title, and each earlier turn's report
    (:func:`ponder.api.history.turns`). Settings as :func:`stream_resume` takes them."""
    from langchain_core.messages import HumanMessage

    from ponder.services.storage.runs import RunHistory

    clean = clean_topic(question)
    environment = read_environment()
    runs = RunHistory(environment.machine)
    record = runs.get(thread_id)
    if record is None:
        raise RunNotFoundError(thread_id)
    if record.status != "done":
        raise InvalidInputError(
            f"Run '{thread_id}' is {record.status}, not finished — resume it "
            f"(`ponder resume {thread_id}`) before asking a follow-up."
        )
    settings = _continued(record.config, config, anew)
    turn, claim = runs.follow_up(thread_id, clean, settings.model_dump())
    first = {"messages": [HumanMessage(clean)]}
    events = drive(
        thread_id, clean, settings, environment, first, ask, claim=claim, follows=turn - 1
    )
    async for item in events:
        yield item


def _continued(stored: dict[str, Any], config: dict[str, Any], anew: bool) -> Configuration:
    """The settings a run goes on with: what it stored, ``config`` over them; ``anew``,
    ``config`` alone over today's environment. A stored value whose credentials were
    redacted comes from the environment instead."""
    if anew:
        return Configuration.create(**config)
    kept = {key: value for key, value in stored.items() if not was_redacted(value)}
    return Configuration.create(**{**kept, **config})


def _run_sync(work: Coroutine[Any, Any, Report]) -> Report:
    """Run ``work`` to completion, also from inside a running loop (Jupyter, async apps)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    # asyncio.run refuses to nest, so the run gets its own loop on a worker thread.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ponder") as pool:
        return pool.submit(asyncio.run, work).result()


def server_url(server: str | None, machine: Machine | None = None) -> str | None:
    """The LangGraph Server to run on: as given, else ``PONDER_SERVER`` (the ``machine``'s
    settings, read from the environment here when not given), else none (local)."""
    if not server:
        server = (machine or read_environment().machine).server
    return (server or "").strip() or None
