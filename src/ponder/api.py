"""The Python API: research, aresearch, stream, resume.

Every run is checkpointed in SQLite under the user's data directory, so a run that was
interrupted (Ctrl-C, a closed terminal, SIGKILL) is finished by ``resume(thread_id)``.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ponder.config import Configuration
from ponder.environment import machine
from ponder.errors import ClarificationNeeded, InvalidInputError, PonderError, RunNotFoundError
from ponder.events import ProgressEvent
from ponder.redact import was_redacted
from ponder.report import Report
from ponder.topic import MAX_TOPIC_CHARS, clean_topic

Ask = Callable[[str], str | Awaitable[str]]


__all__ = [
    "MAX_TOPIC_CHARS",
    "ClarificationNeeded",
    "aresearch",
    "aresume",
    "clean_topic",
    "research",
    "resume",
    "stream",
    "stream_followup",
    "stream_resume",
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
    (or ``PONDER_SERVER``) runs the research on a LangGraph Server (see ``ponder.remote``).
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
    report: Report | None = None
    async for item in stream(topic, thread_id=thread_id, ask=ask, server=server, **config):
        if isinstance(item, Report):
            report = item
    assert report is not None
    return report


async def stream(
    topic: str,
    *,
    thread_id: str | None = None,
    ask: Ask | None = None,
    server: str | None = None,
    **config: Any,
) -> AsyncIterator[ProgressEvent | Report]:
    """Yield :class:`ProgressEvent` objects while researching, then the :class:`Report`."""
    clean = clean_topic(topic)
    if server := server_url(server):
        from ponder.remote import stream_remote

        async for item in stream_remote(server, clean, ask=ask, **config):
            yield item
        return
    settings = Configuration.create(**config)
    thread = thread_id or new_thread_id()
    from ponder.services.storage import runs

    if thread_id is not None and runs.get(thread_id) is not None:
        raise InvalidInputError(
            f"A run with id '{thread_id}' already exists — continue it with "
            f"resume('{thread_id}') (`ponder resume {thread_id}`) or choose a new thread_id."
        )
    runs.start(thread, clean, settings.model_dump())
    async for item in _drive(thread, clean, settings, {"topic": clean}, ask):
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
    ``resume(id, ollama_base_url="http://gpu-box:11434")`` when Ollama moved. ``force``
    continues a run that a shared database says another machine is running (that machine
    stopped without saying so). ``server`` follows a run on a LangGraph Server instead.
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
    report: Report | None = None
    events = stream_resume(thread_id, answer, ask=ask, force=force, server=server, **config)
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
    **config: Any,
) -> AsyncIterator[ProgressEvent | Report]:
    """Like :func:`stream`, for a run that already has a checkpoint."""
    from langgraph.types import Command

    from ponder.services.storage import runs

    if server := server_url(server):
        from ponder.remote import stream_remote_resume

        async for item in stream_remote_resume(server, thread_id, answer, ask=ask, **config):
            yield item
        return

    record = runs.get(thread_id)
    if record is None:
        raise RunNotFoundError(thread_id)
    if record.status == "running" and record.elsewhere and not force:
        raise InvalidInputError(
            f"Run '{thread_id}' is running on {record.host}, as far as the shared database "
            "knows — wait for it, or if that machine stopped, continue here with "
            f"`ponder resume {thread_id} --force` (force=True)."
        )
    if record.status == "running" and not record.elsewhere:
        raise InvalidInputError(
            f"Run '{thread_id}' is still running in another process — wait for it to finish, "
            "or stop it (Ctrl-C) and then resume."
        )
    # A stored value whose credentials were redacted comes from the environment instead.
    stored = {key: value for key, value in record.config.items() if not was_redacted(value)}
    settings = Configuration.create(**{**stored, **config})
    runs.start(thread_id, record.topic, settings.model_dump())
    first: Any = Command(resume=answer) if answer is not None else None
    async for item in _drive(thread_id, record.topic, settings, first, ask):
        yield item


async def stream_followup(
    thread_id: str, question: str, *, ask: Ask | None = None, **config: Any
) -> AsyncIterator[ProgressEvent | Report]:
    """A follow-up question on a finished run: it builds on the sources and findings that
    run kept (the thread's next turn), and its report answers the new question."""
    from langchain_core.messages import HumanMessage

    from ponder.services.storage import runs

    clean = clean_topic(question)
    record = runs.get(thread_id)
    if record is None:
        raise RunNotFoundError(thread_id)
    if record.status != "done":
        raise InvalidInputError(
            f"Run '{thread_id}' is {record.status}, not finished — resume it "
            f"(`ponder resume {thread_id}`) before asking a follow-up."
        )
    stored = {key: value for key, value in record.config.items() if not was_redacted(value)}
    settings = Configuration.create(**{**stored, **config})
    runs.start(thread_id, clean, settings.model_dump())
    first = {"messages": [HumanMessage(clean)]}
    async for item in _drive(thread_id, clean, settings, first, ask):
        yield item


def _run_sync(work: Coroutine[Any, Any, Report]) -> Report:
    """Run ``work`` to completion, also from inside a running loop (Jupyter, async apps)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    # asyncio.run refuses to nest, so the run gets its own loop on a worker thread.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ponder") as pool:
        return pool.submit(asyncio.run, work).result()


def server_url(server: str | None) -> str | None:
    """The LangGraph Server to run on: as given, else ``PONDER_SERVER``, else none (local)."""
    return (server or machine().server or "").strip() or None


def warm_up() -> None:
    """Import what a first run needs (the graphs, the model client, search, the page reader,
    the checkpointer). A served process calls it in a thread at start: imported in its first
    run instead, they would hold its event loop for a second or two."""
    import importlib

    for module in (
        "ponder.graphs.main",
        "ponder.services.storage.checkpoints",
        "ponder.services.search",
        "ponder.services.web.reader",
        "langchain_ollama",
    ):
        importlib.import_module(module)


def new_thread_id() -> str:
    """A fresh run id: sortable by start time, then 128 random bits.

    On a shared server (``ponder mcp``, ``ponder ui``) a run id reaches a caller, and a
    guessed one would let a stranger open or resume someone else's run; the 24 bits ids
    had once could be tried in a day. Owners are checked too: the id is not the key.
    """
    return time.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(16)


async def _drive(
    thread_id: str, topic: str, settings: Configuration, first: Any, ask: Ask | None
) -> AsyncIterator[ProgressEvent | Report]:
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Command

    from ponder.graphs.main import graph_builder
    from ponder.services.storage import runs
    from ponder.services.storage.checkpoints import open_checkpointer

    # The settings travel as LangGraph's runtime context, not in ``configurable``: LangGraph
    # copies configurable values into checkpoint metadata, and URLs may hold credentials.
    config: RunnableConfig = {
        "configurable": {"thread_id": thread_id},
        "recursion_limit": settings.recursion_limit,
    }
    started = time.perf_counter()
    status = "failed"
    message: str | None = None
    try:
        async with open_checkpointer() as saver:
            graph = graph_builder().compile(checkpointer=saver)
            snapshot = await graph.aget_state(config)
            # A finished run is not run again (its reducers would append a second pass).
            finished = first is None and not snapshot.next and bool(snapshot.values.get("report"))
            if first is None and not snapshot.next and not snapshot.tasks:
                first = {"topic": topic}  # nothing pending: the run never began
            pending: Any = first
            while not finished:
                # durability="sync": a step's checkpoint is on disk before the next step
                # starts, so a SIGKILL never loses a step that had finished.
                async for ns, mode, chunk in graph.astream(
                    pending,
                    config,
                    context=settings,
                    stream_mode=["custom"],
                    subgraphs=True,
                    durability="sync",
                ):
                    if mode == "custom" and isinstance(chunk, dict):
                        yield ProgressEvent.from_custom(tuple(ns), chunk)
                snapshot = await graph.aget_state(config, subgraphs=True)
                question = _pending_question(snapshot)
                if question is None:
                    break
                yield ProgressEvent(kind="clarification", data={"question": question})
                if ask is None:
                    status, message = "waiting", question
                    raise ClarificationNeeded(question, thread_id)
                answer = ask(question)
                if asyncio.iscoroutine(answer) or isinstance(answer, Awaitable):
                    answer = await answer
                pending = Command(resume=str(answer))
            values = snapshot.values
        report = Report.from_state(topic, thread_id, values, time.perf_counter() - started)
        status = "done"
        yield report
    except (asyncio.CancelledError, KeyboardInterrupt):
        status, message = "interrupted", "stopped by the user"
        raise
    except PonderError as exc:
        message = message or str(exc)
        raise
    finally:
        runs.finish(thread_id, status, message=message)  # type: ignore[arg-type]


def _pending_question(snapshot: Any) -> str | None:
    for interrupt in getattr(snapshot, "interrupts", ()) or ():
        value = interrupt.value
        return str(value.get("question") if isinstance(value, dict) else value)
    for task in getattr(snapshot, "tasks", ()) or ():
        for interrupt in task.interrupts or ():
            value = interrupt.value
            return str(value.get("question") if isinstance(value, dict) else value)
        if task.state is not None:
            found = _pending_question(task.state)
            if found:
                return found
    return None
