"""Who may call a LangGraph Server that serves ponder, and what each caller sees.

LangGraph's own custom auth (``"auth"`` in ``langgraph.json``): a bearer token per user,
from the server's environment, ``PONDER_SERVER_TOKENS`` — ``alice=TOKEN,bob=TOKEN`` or a
JSON object ``{"alice": "TOKEN"}``. A request without a known token gets 401. Each thread
(and the runs on it) belongs to the user who created it: another user can neither list,
read, resume nor delete it. A run or an assistant whose settings overstep what a caller may
set is refused (403), and one with an invalid value (422), before it is stored; the graph
refuses the same by itself (``ponder.graphs.studio``), so the check also holds without this
handler. Everything else (scheduled runs, the key-value store) is refused: ponder uses
neither.

A served graph's state and course are not caller input either: writing a thread's state
(``update_state``, a thread created with ``supersteps``), a run whose ``command`` carries
``update`` or ``goto`` (``resume``, the answer to a clarifying question, is what a command
is for), a ``webhook``, and a ``recursion_limit`` above what a run at the operator's
ceilings needs are refused (403). The graph does not trust its counters either
(:func:`ponder.core.state.graph_count`), so a state written some other way cannot extend a run.

A caller may have at most ``caller_runs`` runs pending or running at once (429 beyond it).
The handler counts them in the server's own store, through LangGraph's in-process client,
as each run is created: two created in the same instant may both pass.
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

from langgraph_sdk import Auth
from langgraph_sdk.schema import RunStatus

from ponder.core.errors import CallerRefusedError, ConfigurationError
from ponder.interfaces.tokens import one_user_per_token, server_tokens
from ponder.settings.callers import operator_configuration, served_configuration
from ponder.settings.ceilings import above_recursion_ceiling, recursion_ceiling, too_many_runs
from ponder.settings.environment import read_environment
from ponder.settings.keys import Secret

TOKENS_ENV: Secret = "PONDER_SERVER_TOKENS"
LIVE: tuple[RunStatus, ...] = ("pending", "running")  # a run holding one of its caller's places

auth = Auth()
log = logging.getLogger(__name__)


def _unauthorized(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(
        status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"}
    )


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    # Each request is an edge: the server's environment, read as the request comes in.
    tokens = server_tokens(read_environment().secret(TOKENS_ENV) or "")
    if not tokens:
        raise _unauthorized(
            f"This server accepts no callers yet: its operator sets {TOKENS_ENV} (user=token,...)."
        )
    try:
        one_user_per_token(tokens, TOKENS_ENV)
    except ConfigurationError as exc:
        log.error("%s", exc)  # the names are the operator's to read, not a caller's
        raise _unauthorized(
            "This server's tokens are set wrong (two users share one): ask its operator."
        ) from None
    scheme, _, token = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized(
            "Send your token as 'Authorization: Bearer TOKEN' (ponder: PONDER_SERVER_TOKEN)."
        )
    user = None
    for name, expected in tokens.items():  # compare with every token, in constant time
        if hmac.compare_digest(token.strip().encode(), expected.encode()):
            user = name
    if user is None:
        raise _unauthorized("Unknown token — ask the server's operator for yours.")
    return {"identity": user}


@auth.on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> bool:
    """Default deny: scheduled runs, the store, and anything a later server version adds."""
    return False


def _owned(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Stamp the caller as owner of what it creates or changes; see only its own."""
    metadata = value.get("metadata")
    if metadata is None:
        value["metadata"] = metadata = {}
    metadata["owner"] = ctx.user.identity  # in place: the server keeps its own reference
    return {"owner": ctx.user.identity}


def _refused(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=403, detail=detail)


def _vet_run(kwargs: dict[str, Any]) -> None:
    """Refuse what a run carries besides its settings that would steer the served graph
    or send its output elsewhere (403), before anything is stored."""
    problems = []
    command = kwargs.get("command")
    steered = [k for k in ("update", "goto") if isinstance(command, dict) and command.get(k)]
    if steered:
        problems.append(
            f"a run's command may only resume a paused run ({{'resume': answer}}), not "
            f"{' or '.join(steered)}: ponder's graph keeps its own state and course"
        )
    if kwargs.get("webhook"):
        problems.append(
            "webhook: this server sends a run's output to no address a caller names — "
            "follow the run (wait, join or stream) instead"
        )
    if too_deep := _too_deep(kwargs.get("config")):
        problems.append(too_deep)
    if problems:
        raise _refused("This server refused the run: " + "; ".join(problems) + ".")


def _too_deep(config: Any) -> str | None:
    """A run's (or an assistant's) recursion_limit above what a run at the ceilings needs."""
    limit = config.get("recursion_limit") if isinstance(config, dict) else None
    return above_recursion_ceiling(limit, recursion_ceiling(operator_configuration()))


def _vet_settings(*layers: Any) -> None:
    """Refuse a run's or an assistant's settings that a caller may not send (403), or that
    are not valid settings at all (422), before anything is stored."""
    values: dict[str, Any] = {}
    for layer in layers:
        if isinstance(layer, dict):
            values.update(layer)
    try:
        served_configuration(values)
    except CallerRefusedError as exc:
        raise _refused(str(exc)) from None
    except ConfigurationError as exc:
        raise Auth.exceptions.HTTPException(status_code=422, detail=str(exc)) from None


@auth.on.threads.create
async def create_thread(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return _owned(ctx, value)


@auth.on.threads.update
async def update_thread(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """A thread's metadata (ponder --server keeps a run's options there) and a run's
    cancellation (an ``action``) are the caller's own; its state is the graph's. LangGraph
    asks this handler about a state write with the thread's id alone."""
    if "metadata" not in value and not value.get("action"):
        raise _refused(
            "A caller cannot write a thread's state on this server (update_state, or a "
            "thread created with supersteps): ponder's graph keeps its own. Start a run with "
            "input, or answer a paused run's question with command={'resume': answer}."
        )
    return _owned(ctx, value)


@auth.on(resources=["threads"], actions=["read", "search", "delete"])
async def own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return {"owner": ctx.user.identity}


@auth.on.threads.create_run
async def create_run(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    kwargs = value.get("kwargs") or {}
    config = kwargs.get("config") or {}
    _vet_run(kwargs)
    _vet_settings(config.get("configurable"), kwargs.get("context"))
    await _within_run_limit(ctx.user.identity)
    return _owned(ctx, value)


async def _within_run_limit(user: str) -> None:
    """Refuse (429) a run beyond the caller's ``caller_runs`` pending or running ones."""
    limit = operator_configuration().caller_runs
    try:
        live = await _live_runs(user, limit)
    except Exception as exc:  # not counted is not allowed: the limit must hold
        log.exception("could not count %s's runs", user)
        raise Auth.exceptions.HTTPException(
            status_code=503,
            detail=f"This server could not count your runs in progress ({type(exc).__name__}) "
            "— try again; if it lasts, its operator finds the cause in the server's log.",
        ) from None
    if live >= limit:
        raise Auth.exceptions.HTTPException(status_code=429, detail=str(too_many_runs(live, limit)))


async def _live_runs(user: str, limit: int) -> int:
    """The user's pending and running runs, up to ``limit``: each lies on one of the user's
    busy threads, read through the server's in-process client (no auth there, so no
    recursion into this handler)."""
    from langgraph_sdk import get_client

    async with get_client(url=None, api_key=None) as server:
        busy = await server.threads.search(metadata={"owner": user}, status="busy", limit=limit)
        live = 0
        for thread in busy:
            for status in LIVE:
                live += len(await server.runs.list(thread["thread_id"], status=status, limit=limit))
            if live >= limit:
                break
        return live


@auth.on(resources=["assistants"], actions=["create", "update"])
async def write_assistant(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    config = value.get("config") or {}
    if too_deep := _too_deep(config):
        raise _refused(f"This server refused the assistant: {too_deep}.")
    _vet_settings(config.get("configurable"), value.get("context"))
    return _owned(ctx, value)


@auth.on.assistants.delete
async def delete_assistant(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return {"owner": ctx.user.identity}


@auth.on(resources=["assistants"], actions=["read", "search"])
async def read_assistants(ctx: Auth.types.AuthContext, value: Any) -> bool:
    """Assistants are shared: they hold only settings a caller may send, and the graph
    ("ponder") must stay readable to everyone."""
    return True
