"""Driving one run of the graph: checkpointed, streamed as progress events, stopped at a
clarifying question (answered by ``ask`` or raised), and recorded in the run history."""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ponder.core.errors import ClarificationNeeded, PonderError
from ponder.core.events import ProgressEvent
from ponder.core.result import Report
from ponder.core.stats import since
from ponder.settings.configuration import Configuration
from ponder.settings.environment import Environment

Ask = Callable[[str], str | Awaitable[str]]


def warm_up() -> None:
    """Import what a first run needs (the graphs, the model client, search, the page reader,
    the checkpointer). A served process calls it in a thread at start: imported in its first
    run instead, they would hold its event loop for a second or two."""
    import importlib

    for module in (
        "ponder.graphs.main",
        "ponder.services.storage.checkpoints",
        "ponder.services.search.factory",
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


async def drive(
    thread_id: str,
    topic: str,
    settings: Configuration,
    environment: Environment,
    first: Any,
    ask: Ask | None,
    *,
    claim: str,
    follows: int = 0,
    after: str | None = None,
) -> AsyncIterator[ProgressEvent | Report]:
    """Run the thread's current turn (``topic``: its question) to its report, holding the
    run's ``claim`` (renewed as it goes; the run stops if another process takes it over).
    ``follows``: the turn a follow-up comes after, whose checkpoint is recorded here if it
    was not (a run from before turns were kept); ``after``: for a turn resumed, the
    checkpoint the turn before it finished in (its cost is the earlier turns', not this
    turn's)."""
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Command

    from ponder.graphs.main import graph_builder
    from ponder.services.storage.checkpoints import open_checkpointer
    from ponder.services.storage.claims import holding
    from ponder.services.storage.runs import RunHistory
    from ponder.settings.run_settings import RunContext

    # The settings travel as LangGraph's runtime context, not in ``configurable``: LangGraph
    # copies configurable values into checkpoint metadata, and URLs may hold credentials.
    # So do the machine's settings and the keys the edge read: the context is never stored.
    context = RunContext(settings, environment)
    runs = RunHistory(environment.machine)
    config: RunnableConfig = {
        "configurable": {"thread_id": thread_id},
        "recursion_limit": settings.recursion_limit,
    }
    started = time.perf_counter()
    status = "failed"
    message: str | None = None
    checkpoint: str | None = None
    renew = functools.partial(runs.renew, thread_id, claim)
    every = environment.machine.run_lease_seconds / 4
    try:
        async with (
            holding(thread_id, renew, every) as held,
            open_checkpointer(environment.machine) as saver,
        ):
            graph = graph_builder().compile(checkpointer=saver)
            snapshot = await graph.aget_state(config)
            earlier = snapshot.values.get("stats") if follows else None  # the earlier turns' cost
            if after is not None:
                there = {"thread_id": thread_id, "checkpoint_id": after}
                at: RunnableConfig = {"configurable": there}
                earlier = (await graph.aget_state(at)).values.get("stats")
            if follows and (before := checkpoint_of(snapshot)):
                runs.settle(thread_id, follows, before)
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
                    context=context,
                    stream_mode=["custom"],
                    subgraphs=True,
                    durability="sync",
                ):
                    held.check()  # between steps: taken over, this process stops here
                    if mode == "custom" and isinstance(chunk, dict):
                        yield ProgressEvent.from_custom(tuple(ns), chunk)
                snapshot = await graph.aget_state(config, subgraphs=True)
                question = pending_question(snapshot)
                if question is None:
                    break
                yield ProgressEvent(kind="clarification", data={"question": question})
                if ask is None:
                    status, message = "waiting", question
                    raise ClarificationNeeded(question, thread_id)
                answer = ask(question)
                if asyncio.iscoroutine(answer) or isinstance(answer, Awaitable):
                    answer = await answer
                await held.confirm()  # a terminal's question holds the loop, and the lease
                pending = Command(resume=str(answer))
            held.check()
            values = {**snapshot.values, "stats": since(snapshot.values.get("stats"), earlier)}
        report = Report.from_state(topic, thread_id, values, time.perf_counter() - started)
        status, checkpoint = "done", checkpoint_of(snapshot)
        yield report
    except (asyncio.CancelledError, KeyboardInterrupt):
        status, message = "interrupted", "stopped by the user"
        raise
    except PonderError as exc:
        message = message or str(exc)
        raise
    finally:
        runs.finish(thread_id, status, claim=claim, message=message, checkpoint_id=checkpoint)  # type: ignore[arg-type]


def checkpoint_of(snapshot: Any) -> str | None:
    """The id of the checkpoint a state snapshot was read from: a turn's report is read
    back from it."""
    found = (snapshot.config or {}).get("configurable", {}).get("checkpoint_id")
    return str(found) if found else None


def pending_question(snapshot: Any) -> str | None:
    for interrupt in getattr(snapshot, "interrupts", ()) or ():
        value = interrupt.value
        return str(value.get("question") if isinstance(value, dict) else value)
    for task in getattr(snapshot, "tasks", ()) or ():
        for interrupt in task.interrupts or ():
            value = interrupt.value
            return str(value.get("question") if isinstance(value, dict) else value)
        if task.state is not None:
            found = pending_question(task.state)
            if found:
                return found
    return None
