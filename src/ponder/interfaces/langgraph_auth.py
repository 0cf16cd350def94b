"""Who may call a server that serves ponder's graph, and what each caller sees.

One module for both engines that read ``langgraph.json``: LangGraph Server (and ``langgraph
dev``) and Aegra. They call the same handlers with different shapes, and every check below
reads both: the token from the ``headers`` (Aegra passes them as one ``str`` dict, LangGraph
by name as ``bytes``); a run's body under ``kwargs`` (LangGraph) or flat (Aegra); a
cancellation with an ``action`` (LangGraph) or a ``run_id`` (Aegra).

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

A caller may have at most ``caller_runs`` runs pending or running at once (429 beyond it),
counted by :mod:`ponder.interfaces.langgraph_limits` through the engine's own runs API.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from ponder.core.errors import CallerRefusedError, ConfigurationError
from ponder.interfaces.langgraph_limits import live_runs
from ponder.settings.callers import operator_configuration, served_configuration
from ponder.settings.ceilings import above_recursion_ceiling, recursion_ceiling, too_many_runs
from ponder.settings.environment import Environment, read_environment
from ponder.settings.keys import Secret
from ponder.settings.users import one_user_per_token, server_tokens

TOKENS_ENV: Secret = "PONDER_SERVER_TOKENS"
# What a thread update may carry and still write no state: its metadata, or a cancellation
# (LangGraph: ``action`` and the runs in ``metadata``; Aegra: the ``run_id``, or a run's new
# ``status`` through PATCH). Aegra hands a state write's own body (``values``, ``as_node``,
# ``checkpoint``...), so any other key is one.
NOT_STATE = frozenset({"thread_id", "metadata", "action", "run_id", "run_ids", "status"})

auth = Auth()
log = logging.getLogger(__name__)


def _unauthorized(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(
        status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"}
    )


def _authorization(headers: Mapping[Any, Any] | None) -> str:
    """The Authorization header, from either engine's headers: ``bytes`` from LangGraph (its
    asgi scope's), ``str`` from Aegra (Starlette's, lower-cased)."""
    for key, value in (headers or {}).items():
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if name.lower() == "authorization":
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return ""


@auth.authenticate
async def authenticate(headers: Mapping[Any, Any] | None) -> Auth.types.MinimalUserDict:
    # LangGraph passes ``headers`` by name, Aegra the same dict as the one argument.
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
    scheme, _, token = _authorization(headers).strip().partition(" ")
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


def _vet_run(body: Mapping[str, Any]) -> None:
    """Refuse what a run carries besides its settings that would steer the served graph
    or send its output elsewhere (403), before anything is stored."""
    problems = []
    command = body.get("command")
    steered = [k for k in ("update", "goto") if isinstance(command, dict) and command.get(k)]
    if steered:
        problems.append(
            f"a run's command may only resume a paused run ({{'resume': answer}}), not "
            f"{' or '.join(steered)}: ponder's graph keeps its own state and course"
        )
    if body.get("webhook"):
        problems.append(
            "webhook: this server sends a run's output to no address a caller names — "
            "follow the run (wait, join or stream) instead"
        )
    if too_deep := _too_deep(body.get("config")):
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


def _writes_state(value: Mapping[str, Any]) -> bool:
    """Whether a thread update writes the thread's state: LangGraph asks about one with the
    thread's id alone, Aegra with the write's own body."""
    if set(value) - NOT_STATE:
        return True
    return "metadata" not in value and not value.get("action") and not value.get("run_id")


@auth.on.threads.update
async def update_thread(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """A thread's metadata (ponder --server keeps a run's options there) and a run's
    cancellation are the caller's own; its state is the graph's."""
    if _writes_state(value):
        raise _refused(
            "A caller cannot write a thread's state on this server (update_state, or a "
            "thread created with supersteps): ponder's graph keeps its own. Start a run with "
            "input, or answer a paused run's question with command={'resume': answer}."
        )
    return _owned(ctx, value)


@auth.on(resources=["threads"], actions=["read", "search", "delete"])
async def own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    return {"owner": ctx.user.identity}


def _run_bodies(value: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A run's body as each engine hands it: under ``kwargs`` (LangGraph), flat (Aegra).
    Both are vetted, so a key in the other place cannot slip past."""
    if "method" in value or "params" in value:  # Aegra's Agent Protocol v2 commands
        raise _refused(
            "This server starts runs through its runs API (POST /threads/ID/runs), not "
            "protocol commands: use langgraph-sdk's client.runs."
        )
    kwargs = value.get("kwargs")
    return [value, kwargs] if isinstance(kwargs, Mapping) else [value]


@auth.on.threads.create_run
async def create_run(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    bodies = _run_bodies(value)
    for body in bodies:
        _vet_run(body)
    layers = []
    for body in bodies:
        config = body.get("config")
        layers += [config.get("configurable") if isinstance(config, dict) else None]
        layers += [body.get("context")]
    _vet_settings(*layers)
    await _within_run_limit(ctx.user.identity, read_environment())
    return _owned(ctx, value)


async def _within_run_limit(user: str, environment: Environment) -> None:
    """Refuse (429) a run beyond the caller's ``caller_runs`` pending or running ones."""
    limit = operator_configuration().caller_runs
    try:
        live = await live_runs(user, limit, environment)
    except ConfigurationError as exc:  # the operator's to fix; the caller is told so
        log.error("%s", exc)
        raise Auth.exceptions.HTTPException(
            status_code=503,
            detail="This server cannot count your runs in progress: its operator has not "
            "set it up (the server's log says how) — ask them.",
        ) from None
    except Exception as exc:  # not counted is not allowed: the limit must hold
        log.exception("could not count %s's runs", user)
        raise Auth.exceptions.HTTPException(
            status_code=503,
            detail=f"This server could not count your runs in progress ({type(exc).__name__}) "
            "— try again; if it lasts, its operator finds the cause in the server's log.",
        ) from None
    if live >= limit:
        raise Auth.exceptions.HTTPException(status_code=429, detail=str(too_many_runs(live, limit)))


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
