"""`ponder mcp`: ponder as an MCP server (the official `mcp` SDK's MCPServer).

Tools: ``research`` (a question, with optional mode, search, docs and max_loops; returns
the report in Markdown and its sources as structured content, with a progress
notification per round), ``search_documents`` (passages of the user's indexed folders,
with file and location) and ``resume`` (a run id and an answer). A clarifying question
goes to the client through elicitation when it supports that — mid-call on protocol
revisions up to 2025-11-25, as an input-required result (the client asks, then calls
again) on 2026-07-28 — and otherwise comes back as a result that says how to answer it
with ``resume``. Settings come from the environment exactly as for the CLI
(``PONDER_MODEL``, ``OLLAMA_HOST``, ``PONDER_DOCS``…): the environment is the operator's.

The client is a caller, often an agent acting on text it read: its ``search`` must be one
the operator enables, its ``docs`` must lie in the operator's document folders and its
``max_loops`` at most the operator's ceiling (:mod:`ponder.settings.callers`); ``resume`` continues
only runs this server started for the same user (:mod:`ponder.interfaces.mcp.owners`; any
other id is unknown to that caller), and one caller (one token; the one client of stdio)
has at most ``caller_runs`` runs in progress at once (:class:`ponder.settings.ceilings.RunSlots`).

Served over stdio (the default) or, with ``--http PORT``, over streamable HTTP (who may
call: :mod:`ponder.interfaces.mcp.http`). With ``PONDER_SERVER`` set, an engine holds the runs
(:func:`_on_engine`): each caller acts there with their own token, and the engine keeps
their runs' owners and counts their runs, so several of these servers act as one.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

from ponder.core.errors import PonderError
from ponder.core.events import ProgressEvent
from ponder.core.result import Report
from ponder.core.warnings import collapse
from ponder.interfaces.mcp.http import (
    LOCAL,
    caller,
    check_listening,
    server_auth,
    transport_security,
)
from ponder.interfaces.mcp.owners import asked, owner, set_owner
from ponder.interfaces.tokens import engine_token
from ponder.settings.caller_view import CallerView
from ponder.settings.callers import continued_options, operator_configuration, served_options
from ponder.settings.ceilings import RunSlots
from ponder.settings.choices import Mode
from ponder.settings.environment import read_environment
from ponder.settings.search_backends import SearchName

INSTRUCTIONS = (
    "ponder researches a question with a local model and writes a report in which every "
    "claim cites a source it read (the web or the user's documents). `research` takes "
    "minutes, not seconds; `search_documents` is instant."
)


ANSWER_KEY = "clarification"  # the key of our one input request
RUN_PREFIX = "mcp-"  # the ids of the runs this server starts, the only ones it resumes
SLOTS = RunSlots()  # the runs each caller has in progress here
LOCAL_CALLER = "local"  # stdio's one client, or anyone on an open loopback port


class Answer(BaseModel):
    answer: str = Field(description="Your answer to the research's clarifying question")


def build_server(**auth: Any) -> MCPServer:
    server = MCPServer("ponder", instructions=INSTRUCTIONS, **auth)

    @server.tool()
    async def research(
        question: str,
        ctx: Context,
        mode: Mode | None = None,
        search: SearchName | list[SearchName] | None = None,
        docs: list[str] | None = None,
        max_loops: int | None = None,
    ) -> CallToolResult | InputRequiredResult:
        """Research a question and return a cited report (Markdown) with its sources.

        mode: loop (focused), deep (broad topics: clarify, brief, parallel researchers), or
        auto. search: where to look (local = the user's documents, given in docs;
        wikipedia, arxiv: their APIs), one backend or a list of several.
        max_loops: at most this many search rounds.
        """
        from ponder.api import new_thread_id, stream

        if (answered := _answered(ctx)) is not None:  # the client answered our question
            return await _resume(*answered, ctx)
        options: dict[str, Any] = {
            "mode": mode, "search": search, "docs": docs, "max_loops": max_loops
        }  # fmt: skip
        chosen = {key: value for key, value in options.items() if value is not None}
        try:
            allowed = served_options(chosen)
        except PonderError as exc:
            return _error(str(exc))
        if engine := _engine():  # the engine adds its operator's settings to the caller's
            return await _on_engine(engine, ctx, question=question, chosen=chosen)
        run_id = RUN_PREFIX + new_thread_id()
        try:
            await asyncio.to_thread(set_owner, run_id, caller(), chosen)
        except PonderError as exc:
            return _error(str(exc))
        return await _run(stream(question, thread_id=run_id, ask=_asker(ctx), **allowed), ctx)

    @server.tool()
    async def resume(
        run_id: str, ctx: Context, answer: str | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Continue a research run: answer its clarifying question, or finish a run that
        stopped. Returns the report like `research`."""
        if (answered := _answered(ctx)) is not None:
            run_id, answer = answered
        return await _resume(run_id, answer, ctx)

    @server.tool()
    async def search_documents(
        query: str, docs: list[str] | None = None, limit: int = 5
    ) -> CallToolResult:
        """Search the user's indexed documents (docs, or PONDER_DOCS) and return the best
        passages, each with its file and where in the file it is."""
        from dataclasses import asdict

        from ponder.api.documents import search_documents as search

        warnings: list[str] = []
        try:
            chosen = {"search": "local", **({"docs": docs} if docs else {})}
            found = await search(query, limit, warn=warnings.append, **served_options(chosen))
        except PonderError as exc:
            return _error(str(exc))
        passages = [asdict(passage) for passage in found]
        lines = [f"{p['file']} ({p['location']}):\n{p['text']}" for p in passages]
        text = "\n\n".join(lines) or f"Nothing in your documents matches {query!r}."
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content={
                "passages": passages,
                "warnings": [_shown(w) for w in collapse(warnings)],
            },
        )

    return server


async def _resume(
    run_id: str, answer: str | None, ctx: Context
) -> CallToolResult | InputRequiredResult:
    """Continue one of this server's runs that the caller started; any other id, another
    user's run among them, is unknown to a caller."""
    from ponder.api import stream_resume
    from ponder.api.history import run

    if engine := _engine():
        return await _on_engine(engine, ctx, run_id=run_id, answer=answer)
    try:
        mine = run_id.startswith(RUN_PREFIX) and await asyncio.to_thread(owner, run_id) == caller()
        record = await asyncio.to_thread(run, run_id) if mine else None
        if record is None:
            return _error(f"No run with id {run_id!r} on this server — start one with `research`.")
        # A new request: what the caller asked for, vetted again against today's settings.
        today = continued_options(await asyncio.to_thread(asked, run_id), record.config)
    except PonderError as exc:
        return _error(str(exc))
    return await _run(stream_resume(run_id, answer, ask=_asker(ctx), anew=True, **today), ctx)


def _engine() -> str | None:
    """The engine the runs are held by (``PONDER_SERVER``); None: this process holds them."""
    from ponder.api import server_url

    return server_url(None, read_environment().machine)


async def _on_engine(
    server: str, ctx: Context, *, question: str = "", chosen: Any = None,
    run_id: str = "", answer: str | None = None,
) -> CallToolResult | InputRequiredResult:  # fmt: skip
    """A run the engine holds, as the caller (their token there): its owner, its settings'
    vetting and its caller's run limit are the engine's, so any number of these servers
    act as one."""
    from ponder.api import stream, stream_resume

    try:
        who = caller()
        token = engine_token(read_environment(), None if who == LOCAL else who)
    except PonderError as exc:
        return _error(str(exc))
    ask = _asker(ctx)
    if run_id:
        events = stream_resume(run_id, answer, ask=ask, server=server, token=token)
    else:
        events = stream(question, ask=ask, server=server, token=token, **chosen)
    return await _drive(events, ctx)


def _modern(ctx: Context) -> bool:
    """The 2026-07-28 protocol asks the client through the tool's result, not mid-call."""
    return (ctx.protocol_version or "") in MODERN_PROTOCOL_VERSIONS


def _elicits(ctx: Context) -> bool:
    capabilities = ctx.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def _asker(ctx: Context) -> Any:
    """Ask a clarifying question mid-call through elicitation (earlier protocols), when the
    client can answer one."""
    if _modern(ctx) or not _elicits(ctx):
        return None

    async def ask(question: str) -> str:
        result = await ctx.elicit(question, Answer)
        if result.action == "accept" and result.data is not None:
            return result.data.answer
        return ""  # declined: the research goes on with the question as it stands

    return ask


def _answered(ctx: Context) -> tuple[str, str] | None:
    """(run id, answer) when the client retried the call with our question answered."""
    responses = ctx.input_responses or {}
    reply = responses.get(ANSWER_KEY)
    if ctx.request_state is None or not isinstance(reply, ElicitResult):
        return None
    answer = str((reply.content or {}).get("answer") or "") if reply.action == "accept" else ""
    return ctx.request_state, answer


def _caller() -> str:
    """Who calls: the client its bearer token names, or the one local client."""
    token = get_access_token()
    return token.client_id if token is not None else LOCAL_CALLER


async def _run(events: Any, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Drive a run in one of its caller's slots; none free is a clear refusal."""
    try:
        limit = operator_configuration().caller_runs
        with SLOTS.hold(_caller(), limit):
            return await _drive(events, ctx)
    except PonderError as exc:  # too many runs at once, or the server's settings are invalid
        return _error(str(exc))


async def _drive(events: Any, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Drive a run to its report, sending a progress notification per round."""
    from ponder.core.errors import ClarificationNeeded

    report: Report | None = None
    step = [0]
    try:
        async for item in events:
            if isinstance(item, Report):
                report = item
            elif isinstance(item, ProgressEvent):
                await _progress(item, ctx, step)
    except ClarificationNeeded as exc:
        if _modern(ctx) and _elicits(ctx):  # the client asks its user, then calls again
            form = ElicitRequestFormParams(
                message=exc.question, requested_schema=render_elicitation_schema(Answer)
            )
            return InputRequiredResult(
                input_requests={ANSWER_KEY: ElicitRequest(params=form)},
                request_state=exc.thread_id,
            )
        text = (
            f"The research needs an answer first: {exc.question}\n\nCall `resume` with "
            f"run_id={exc.thread_id!r} and your answer."
        )
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content={
                "status": "needs_answer",
                "question": exc.question,
                "run_id": exc.thread_id,
            },
        )
    except PonderError as exc:
        return _error(str(exc))
    assert report is not None
    report = CallerView(operator_configuration()).report(report)  # no operator internals
    return CallToolResult(
        content=[TextContent(type="text", text=report.markdown)],
        structured_content={
            "status": "done",
            "run_id": report.thread_id,
            "sources": [s.model_dump(mode="json") for s in report.sources],
            "stats": report.stats.model_dump(mode="json"),
        },
    )


async def _progress(event: ProgressEvent, ctx: Context, step: list[int]) -> None:
    """One notification per round started (by the loop or any researcher), then one for
    the report; ``step`` counts them, so progress only ever increases, as MCP requires."""
    data = event.data
    if event.kind == "round_start":
        queries = "; ".join(str(q) for q in data.get("queries") or [])
        message = f"round {data.get('round')}: searching {queries}"
    elif event.kind == "report":
        message = "writing the report"
    else:
        return
    step[0] += 1
    await ctx.report_progress(float(step[0]), None, message)


def _error(message: str) -> CallToolResult:
    """An error as the caller reads it: what went wrong, the operator's hosts and files
    named, not given ("Cannot reach Ollama at [ollama host 1]")."""
    return CallToolResult(content=[TextContent(type="text", text=_shown(message))], is_error=True)


def _shown(message: str) -> str:
    return CallerView(operator_configuration()).text(message)


def serve(http_port: int | None = None, host: str = "127.0.0.1") -> int:
    """Serve until stopped: stdio, or streamable HTTP at http://HOST:PORT/mcp."""
    if http_port is None:
        build_server().run()
        return 0
    environment = read_environment()  # the tokens and allowed hosts, once, at the start
    check_listening(host, environment.secrets)
    server = build_server(**server_auth(host, http_port, environment.secrets))
    security = transport_security(environment.machine)
    engine = environment.machine.server
    held = (
        f"runs are held by the engine at {engine}: any number of these servers act as one"
        if engine
        else "one process holds its runs and their owners: for several as one, serve the "
        "runs from an engine (PONDER_SERVER, docs/deploy.md)"
    )
    print(f"ponder mcp: serving on port {http_port} at /mcp ({held})", file=sys.stderr)
    # Ctrl-C is how a server is stopped: the SDK's uvicorn shuts down first, then re-raises it.
    with contextlib.suppress(KeyboardInterrupt):
        server.run("streamable-http", host=host, port=http_port, transport_security=security)
    print("ponder mcp: stopped.", file=sys.stderr)
    return 0
