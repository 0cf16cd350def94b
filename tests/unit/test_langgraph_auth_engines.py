"""ponder's auth handlers as each engine calls them: LangGraph Server (and `langgraph dev`)
and Aegra hand the same handlers different shapes, and every refusal holds for both.

The shapes are the engines' own:
- LangGraph (langgraph_api 0.16, auth/custom.py ``_extract_arguments_from_scope``;
  langgraph_runtime_inmem ops.py): ``headers`` by name as the ASGI scope's ``bytes`` pairs;
  a run as ``Auth.types.RunsCreate`` with its body under ``kwargs``; a state write as
  ``ThreadsUpdate(thread_id=...)`` alone; a cancel with ``action``.
- Aegra 0.11.0 (core/auth_middleware.py, api/runs.py, core/auth_enforcement.py): the headers
  as one positional ``str`` dict; a run as ``RunCreate.model_dump()`` plus ``thread_id``,
  flat; a state write or a cancel as the request's JSON body plus its path parameters.
"""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk import Auth
from langgraph_sdk.auth.types import AuthContext, StudioUser

from ponder.interfaces import langgraph_auth
from ponder.interfaces.langgraph_auth import authenticate, create_run, update_thread

THREAD, RUN = "5f0c6b1e-0000-4000-8000-000000000001", "1ef9-run"
FORGED = {"report": "forged", "research_loop_count": -50}


@pytest.fixture(autouse=True)
def tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_SERVER_TOKENS", "alice=tok-a,bob=tok-b")
    monkeypatch.setenv("PONDER_SERVER_SELF_URL", "http://127.0.0.1:9")


def context(action: str) -> AuthContext:
    user = StudioUser("alice")  # any BaseUser: the handlers read its identity
    return AuthContext(user=user, permissions=[], resource="threads", action=action)  # type: ignore[arg-type]


def langgraph_run(**kwargs: Any) -> dict[str, Any]:
    """``Auth.types.RunsCreate`` as langgraph_runtime_inmem builds it."""
    return {
        "thread_id": THREAD, "assistant_id": "ponder", "run_id": RUN, "status": "pending",
        "metadata": {}, "prevent_insert_if_inflight": True, "multitask_strategy": "reject",
        "if_not_exists": "reject", "after_seconds": 0,
        "kwargs": {"input": None, "command": None, "config": {}, "context": {},
                   "stream_mode": ["values"], "webhook": None, **kwargs},
    }  # fmt: skip


def aegra_run(**fields: Any) -> dict[str, Any]:
    """Aegra's ``{**RunCreate.model_dump(), "thread_id": ...}`` (api/runs.py:92)."""
    return {
        "assistant_id": "ponder", "input": None, "config": {}, "context": {},
        "checkpoint": None, "checkpoint_id": None, "durability": None,
        "checkpoint_during": None, "stream": False, "stream_mode": None,
        "on_disconnect": None, "on_completion": None, "multitask_strategy": None,
        "command": None, "interrupt_before": None, "interrupt_after": None,
        "metadata": None, **fields, "thread_id": THREAD,
    }  # fmt: skip


SHAPES = {"langgraph": langgraph_run, "aegra": aegra_run}


async def refused_run(value: dict[str, Any]) -> str:
    with pytest.raises(Auth.exceptions.HTTPException) as caught:
        await create_run(context("create_run"), value)
    assert caught.value.status_code == 403, caught.value.detail
    return str(caught.value.detail)


async def test_each_engine_s_headers_name_the_caller() -> None:
    # LangGraph: by name, the scope's bytes pairs.
    scope = {b"host": b"127.0.0.1:2024", b"authorization": b"Bearer tok-b"}
    assert await authenticate(headers=scope) == {"identity": "bob"}
    # Aegra: the one positional argument, Starlette's str headers (lower-cased names).
    handler = langgraph_auth.auth._authenticate_handler
    assert handler is not None
    assert await handler({"host": "h", "authorization": "Bearer tok-a"}) == {"identity": "alice"}
    for headers in ({b"authorization": b"Bearer nope"}, {"authorization": "Basic tok-a"}, {}):
        with pytest.raises(Auth.exceptions.HTTPException) as caught:
            await handler(headers)
        assert caught.value.status_code == 401


@pytest.mark.parametrize("engine", SHAPES)
async def test_a_run_that_steers_the_graph_is_refused_in_either_shape(engine: str) -> None:
    shape = SHAPES[engine]
    said = await refused_run(shape(command={"resume": "x", "update": FORGED}))
    assert "not update" in said
    said = await refused_run(shape(command={"goto": "web_research"}))
    assert "not goto" in said
    said = await refused_run(shape(input={"topic": "t"}, config={"recursion_limit": 5000}))
    assert "recursion_limit=5000" in said
    for sent in ({"context": {"ollama_base_url": "http://evil:1"}},
                 {"config": {"configurable": {"mcp_servers": [{"name": "x"}]}}}):  # fmt: skip
        said = await refused_run(shape(input={"topic": "t"}, **sent))
        assert "is set by the server's operator" in said
    if engine == "langgraph":  # Aegra's RunCreate has no webhook: it never reaches a handler
        said = await refused_run(shape(input={"topic": "t"}, webhook="http://93.184.215.14/h"))
        assert "webhook" in said


async def test_a_body_in_the_other_engine_s_place_is_vetted_too() -> None:
    # A flat command beside LangGraph's kwargs, and kwargs inside a flat body: both read.
    said = await refused_run({**langgraph_run(), "command": {"goto": "reflect"}})
    assert "not goto" in said
    said = await refused_run(aegra_run(kwargs={"context": {"allow_private_urls": True}}))
    assert "allow_private_urls is set by the server's operator" in said


async def test_aegra_s_protocol_commands_are_refused_they_could_carry_update_and_goto() -> None:
    # POST /threads/{id}/commands: input.respond folds update and goto into the resume.
    command = {"id": 1, "method": "input.respond", "thread_id": THREAD,
               "params": {"response": "x", "update": FORGED, "goto": "reflect"}}  # fmt: skip
    assert "runs API" in await refused_run(command)


@pytest.mark.parametrize("engine", SHAPES)
async def test_a_resume_in_either_shape_reaches_the_run_limit(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[str] = []

    async def live_runs(user: str, limit: int, environment: Any) -> int:
        counted.append(user)
        return 0 if len(counted) == 1 else limit

    monkeypatch.setattr(langgraph_auth, "live_runs", live_runs)
    value = SHAPES[engine](command={"resume": "The Atlantic coast"})
    assert await create_run(context("create_run"), value) == {"owner": "alice"}
    with pytest.raises(Auth.exceptions.HTTPException) as caught:
        await create_run(context("create_run"), SHAPES[engine](command={"resume": "again"}))
    assert caught.value.status_code == 429 and counted == ["alice", "alice"]


async def test_a_server_that_cannot_reach_itself_refuses_runs_and_says_who_fixes_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("PONDER_SERVER_SELF_URL")
    with pytest.raises(Auth.exceptions.HTTPException) as caught:
        await create_run(context("create_run"), aegra_run(input={"topic": "t"}))
    assert caught.value.status_code == 503 and "operator" in str(caught.value.detail)
    assert any("PONDER_SERVER_SELF_URL" in r.getMessage() for r in caplog.records)


STATE_WRITES = {
    # LangGraph asks about update_state (and supersteps) with the thread's id alone.
    "langgraph update_state": {"thread_id": THREAD},
    # Aegra: POST /threads/{id}/state's body plus the path (core/auth_enforcement.py:84).
    "aegra update_state": {"values": FORGED, "as_node": "reflect", "thread_id": THREAD},
    "aegra values only": {"values": FORGED, "thread_id": THREAD},
    "aegra with metadata": {"values": FORGED, "metadata": {}, "thread_id": THREAD},
    "aegra with a run id": {"values": FORGED, "run_id": RUN, "thread_id": THREAD},
    "aegra fork": {"checkpoint_id": "1f0", "as_node": "__copy__", "thread_id": THREAD},
}
OWN_UPDATES = {
    "langgraph metadata": {"thread_id": THREAD, "metadata": {"ponder_topic": "t"}},
    "langgraph cancel": {
        "thread_id": THREAD,
        "action": "interrupt",
        "metadata": {"run_ids": [RUN], "status": None},
    },
    "aegra metadata": {"metadata": {"ponder_topic": "t"}, "thread_id": THREAD},
    # POST /threads/{id}/runs/{run}/cancel: the SDK sends no body, the action is a query.
    "aegra cancel": {"thread_id": THREAD, "run_id": RUN},
    "aegra PATCH run": {"status": "interrupted", "thread_id": THREAD, "run_id": RUN},
}


@pytest.mark.parametrize("name", STATE_WRITES)
async def test_a_state_write_is_refused_in_either_shape(name: str) -> None:
    with pytest.raises(Auth.exceptions.HTTPException) as caught:
        await update_thread(context("update"), dict(STATE_WRITES[name]))
    assert caught.value.status_code == 403
    assert "cannot write a thread's state" in str(caught.value.detail)


@pytest.mark.parametrize("name", OWN_UPDATES)
async def test_metadata_and_a_cancel_are_the_caller_s_own_in_either_shape(name: str) -> None:
    assert await update_thread(context("update"), dict(OWN_UPDATES[name])) == {"owner": "alice"}
