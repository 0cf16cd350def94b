"""Runs on a LangGraph Server: the same progress, questions and report as a local run.

The research runs wherever a server serves ponder's ``langgraph.json`` graph (``langgraph
dev`` on a laptop, LangGraph Server or Platform on a shared GPU box), driven through
langgraph-sdk. Settings travel with the run, but only those the caller set (flags, keyword
arguments): the server's own environment supplies the rest, such as where its Ollama is.
The server keeps the checkpoints; a run goes on there when the caller stops following it,
and ``resume`` follows it again, answers its question, or fetches its report.

Only settings a caller may choose are sent (:mod:`ponder.settings.callers`): an operator-only one
(an endpoint, a key's destination, MCP servers…) is refused here, before the server is
asked. With ``PONDER_SERVER_TOKEN`` set, it is sent as a bearer token (the server's auth:
:mod:`ponder.interfaces.langgraph_auth`); the API's entry points read it and pass it in.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing, asynccontextmanager
from datetime import datetime
from typing import Any

import httpx

from ponder.core.errors import ClarificationNeeded, PonderError, RemoteServerError, RunNotFoundError
from ponder.core.events import ProgressEvent
from ponder.core.result import Report
from ponder.settings.callers import caller_fields, refuse_operator_fields
from ponder.settings.configuration import Configuration
from ponder.settings.keys import Secret

GRAPH = "ponder"  # the graph's name in langgraph.json
Ask = Callable[[str], str | Awaitable[str]]
# A server thread's status, as `ponder runs` names it.
_STATUS = {"busy": "running", "interrupted": "waiting", "error": "failed", "idle": "done"}


TOKEN_ENV: Secret = "PONDER_SERVER_TOKEN"


def client_for(server: str, token: str | None) -> Any:
    from langgraph_sdk import get_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    # (connect, read, write, pool): a stream may be quiet for a long model call. No api_key:
    # the SDK would send one found in the environment (LANGSMITH_API_KEY…) to this server.
    timeout = (10.0, 600.0, 60.0, 10.0)
    return get_client(url=server.rstrip("/"), api_key=None, timeout=timeout, headers=headers)


async def stream_remote(
    server: str, topic: str, *, token: str | None, ask: Ask | None = None, **options: Any
) -> AsyncIterator[ProgressEvent | Report]:
    """Start ``topic`` on the server; yield its progress, then its :class:`Report`.
    ``token``: the bearer token to send (``PONDER_SERVER_TOKEN``), or None."""
    refuse_operator_fields(options)  # the server's operator sets those, not its callers
    Configuration.create(**options)  # a bad setting is an error here, before the server
    async with talking_to(server), client_for(server, token) as client:
        # The settings stay with the thread, so a resume from anywhere runs with them.
        metadata = {"ponder_topic": topic, "ponder_options": options}
        thread = await client.threads.create(metadata=metadata)
        thread_id = str(thread["thread_id"])
        yield ProgressEvent(kind="remote_run", data={"thread_id": thread_id, "server": server})
        first = {"input": {"topic": topic}}
        async for item in _follow(client, server, thread_id, topic, first, ask, options):
            yield item


async def stream_remote_resume(
    server: str, thread_id: str, answer: str | None = None, *, token: str | None,
    ask: Ask | None = None, **options: Any,
) -> AsyncIterator[ProgressEvent | Report]:  # fmt: skip
    """Follow a server run again: wait for it, answer its question, or fetch its report."""
    refuse_operator_fields(options)
    async with talking_to(server), client_for(server, token) as client:
        try:
            thread = await client.threads.get(thread_id)
        except Exception as exc:
            if status_code(exc) in (404, 422):
                raise RunNotFoundError(thread_id) from None
            raise
        metadata = thread.get("metadata") or {}
        topic = str(metadata.get("ponder_topic") or "")
        # Only what a caller may send (a thread started before that rule may hold more).
        stored = dict(metadata.get("ponder_options") or {})
        stored = {key: value for key, value in stored.items() if key in caller_fields()}
        if options:  # overrides hold from here on, as for a local run
            options = {**stored, **options}
            await client.threads.update(thread_id, metadata={**metadata, "ponder_options": options})
        else:
            options = stored
        for run in await client.runs.list(thread_id, status="running"):
            joined = client.runs.join_stream(thread_id, run["run_id"])
            async for event in progress(client, thread_id, joined):
                yield event
        first: dict[str, Any] | None = {"command": {"resume": answer}} if answer else None
        state = await client.threads.get_state(thread_id)
        if first is None and not state.get("values") and not state.get("next"):
            first = {"input": {"topic": topic}}  # the run was never started: start it
        async for item in _follow(client, server, thread_id, topic, first, ask, options):
            yield item


async def _follow(
    client: Any,
    server: str,
    thread_id: str,
    topic: str,
    first: dict[str, Any] | None,
    ask: Ask | None,
    options: dict[str, Any],
) -> AsyncIterator[ProgressEvent | Report]:
    """Run (or continue) the thread until it has a report, answering questions on the way."""
    started = time.perf_counter()
    pending = first
    while True:
        state = await client.threads.get_state(thread_id, subgraphs=True)
        question = question_of(state)
        if pending is None and question is None and finished(state):
            break
        if pending is None and question is not None:
            yield ProgressEvent(kind="clarification", data={"question": question})
            if ask is None:
                raise ClarificationNeeded(question, thread_id, server)
            answer = ask(question)
            if asyncio.iscoroutine(answer) or isinstance(answer, Awaitable):
                answer = await answer
            pending = {"command": {"resume": str(answer)}}
        runs = client.runs.stream(
            thread_id,
            GRAPH,
            **(pending or from_checkpoint(state)),
            config={"configurable": options},
            stream_mode=["custom"],
            stream_subgraphs=True,
            stream_resumable=True,  # a page (ponder ui on the same engine) can replay it
            on_disconnect="continue",  # stopping the caller leaves the run going on the server
        )
        async for item in progress(client, thread_id, runs):
            yield item
        pending = None
    values = state.get("values") or {}
    yield Report.from_state(topic or str(values.get("topic") or ""), thread_id, values,
                            time.perf_counter() - started)  # fmt: skip


async def progress(
    client: Any, thread_id: str, parts: AsyncGenerator[Any, None]
) -> AsyncIterator[ProgressEvent]:
    """The server's stream parts as ponder's progress events; its errors as ours."""
    async with aclosing(parts) as stream:  # leaving early closes the request at once
        async for part in stream:
            event, _, namespace = str(part.event).partition("|")
            if event == "custom" and isinstance(part.data, dict):
                path = tuple(p for p in namespace.split("|") if p)
                yield ProgressEvent.from_custom(path, part.data)
            elif event == "error":
                raise RemoteServerError(
                    "The run failed on the server: " + await failure(client, thread_id, part.data)
                )


async def failure(client: Any, thread_id: str, data: Any) -> str:
    """What went wrong, in ponder's words when a node raised one of its errors (the stream's
    own message is generic)."""
    with contextlib.suppress(Exception):
        state = await client.threads.get_state(thread_id, subgraphs=True)
        errors = [str(t.get("error")) for t in state.get("tasks") or [] if t.get("error")]
        if errors:
            return "; ".join(errors)
    if isinstance(data, dict):
        return str(data.get("message") or data.get("error"))
    return str(data)


def question_of(state: dict[str, Any]) -> str | None:
    """The clarifying question the run waits on, from any level of subgraph."""
    for interrupt in state.get("interrupts") or []:
        return _text(interrupt.get("value"))
    for task in state.get("tasks") or []:
        for interrupt in task.get("interrupts") or []:
            return _text(interrupt.get("value"))
        nested = task.get("state")
        if isinstance(nested, dict) and (found := question_of(nested)):
            return found
    return None


def from_checkpoint(state: dict[str, Any]) -> dict[str, Any]:
    """A run that goes on from the thread's latest checkpoint (a stopped run's): named, as
    Aegra wants it (LangGraph Server also takes no input at all)."""
    checkpoint = state.get("checkpoint") or {}
    named = {key: value for key, value in checkpoint.items() if value is not None}
    return {"checkpoint": named} if named.get("checkpoint_id") else {}


def _text(value: Any) -> str:
    return str(value.get("question") if isinstance(value, dict) else value)


def finished(state: dict[str, Any]) -> bool:
    return not state.get("next") and bool((state.get("values") or {}).get("report"))


def status_of(thread: str, newest_run: str | None) -> str:
    """A server run's status, as `ponder runs` names it, from the thread's status and its
    newest run's: every engine keeps runs, not every one a thread's values (Aegra's threads
    carry none)."""
    if newest_run in ("pending", "running"):
        return "running"  # the thread's status may lag behind its run's
    if thread == "idle" and newest_run != "success":
        # never started, stopped, or timed out: `resume` carries it on (a failed run: failed)
        return "failed" if newest_run == "error" else "interrupted"
    return _STATUS.get(thread, thread)


def epoch(stamp: Any) -> float:
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def status_code(exc: Exception) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def detail_of(exc: Exception) -> str:
    """The server's own words: the ``detail`` of its JSON answer, else its text."""
    response = getattr(exc, "response", None)
    with contextlib.suppress(Exception):
        return str(response.json()["detail"])  # type: ignore[union-attr]
    return str(getattr(response, "text", ""))[:300]


@asynccontextmanager
async def talking_to(server: str) -> AsyncIterator[None]:
    """Connection and HTTP failures of the server become RemoteServerError."""
    try:
        yield
    except (httpx.ConnectError, httpx.ConnectTimeout):
        raise RemoteServerError(
            f"Cannot reach the LangGraph server at {server} — start it (`langgraph dev` in "
            "ponder's folder) or check --server / PONDER_SERVER."
        ) from None
    except PonderError:
        raise
    except Exception as exc:
        status = status_code(exc)
        if status == 401:
            raise RemoteServerError(
                f"The LangGraph server at {server} wants a token ({detail_of(exc)}) — set "
                f"{TOKEN_ENV} to the one its operator gave you."
            ) from None
        if status in (403, 429):  # a setting it refuses; too many runs of yours at once
            detail = detail_of(exc)
            raise RemoteServerError(f"The LangGraph server at {server} refused: {detail}") from None
        if status is not None:
            body = str(getattr(getattr(exc, "response", None), "text", ""))[:200]
            raise RemoteServerError(
                f"The LangGraph server at {server} answered HTTP {status} ({body}) — does it "
                "serve ponder's langgraph.json?"
            ) from None
        if isinstance(exc, httpx.HTTPError):
            raise RemoteServerError(
                f"Lost the LangGraph server at {server} ({type(exc).__name__}) — the run may "
                "go on there; follow it with `ponder resume ID --server ...`."
            ) from None
        raise
