"""A hostile caller of `ponder mcp`, through the official MCP client over stdio and
streamable HTTP: documents outside the operator's folders, backends the operator did not
enable, runs the server did not start, rounds above the operator's ceiling and a run beyond
the caller's runs at once are refused with a message, and the server goes on serving; on
loopback the SDK's Host/Origin checks stand, and off loopback a bearer token is required
(401 without it); with a token per user, a run is its owner's alone to resume."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from support import ask_once, serve_mcp_http, write_corpus
from test_mcp import text_of

from ponder import aresearch
from ponder.testing import Rig, ScriptedBackend

SRC = Path(__file__).resolve().parents[2] / "src"
TOKEN = "mcp-token-5b9d"
SECRET = "secret-ledger-4417"


@pytest.fixture(scope="module")
def disk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's disk: the operator's documents, and a folder it never offered."""
    root = tmp_path_factory.mktemp("mcp-disk")
    docs = write_corpus(root / "docs")
    (root / "private").mkdir()
    (root / "private" / "payroll.md").write_text(f"Tide bonus: {SECRET}.\n", encoding="utf-8")
    (docs / "charts").mkdir()
    (docs / "charts" / "depths.md").write_text("# Depths\n\nSoundings at low water.\n")
    # In the offered folder, but not offered: a link out of it, and a hidden folder.
    (docs / "bonus.md").symlink_to(root / "private" / "payroll.md")
    (docs / ".notes").mkdir()
    (docs / ".notes" / "bonus.md").write_text(f"Tide bonus draft: {SECRET}.\n")
    return root


@pytest.fixture(scope="module")
def mcp_rig() -> Iterator[Rig]:
    with Rig(ScriptedBackend(), models=("scripted",)) as running:
        yield running


def operator_env(rig: Rig, disk: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PONDER_", "OLLAMA_"))}
    return {
        **clean,
        "PYTHONPATH": str(SRC),
        "OLLAMA_HOST": rig.url,
        "PONDER_MODEL": "scripted",
        "PONDER_SEARCH": "local",
        "PONDER_DOCS": str(disk / "docs"),
        "PONDER_DATA_DIR": str(disk / "data"),
        "PONDER_CACHE_DIR": str(disk / "cache"),
        **extra,
    }


def is_refused(result: types.CallToolResult, *words: str) -> bool:
    text = text_of(result)
    return bool(result.is_error) and all(w in text for w in words) and SECRET not in text


async def test_stdio_refuses_what_a_caller_may_not_choose_and_goes_on(
    mcp_rig: Rig, disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run the operator made on this machine, with the CLI (same data folder).
    monkeypatch.setenv("PONDER_DATA_DIR", str(disk / "data"))
    theirs = await aresearch(
        "What is the tide bonus?", model="scripted", ollama_base_url=mcp_rig.url,
        search="local", docs=[str(disk / "private")], mode="loop", max_loops=1,
    )  # fmt: skip
    assert SECRET in str(theirs.sources)
    calls = len(mcp_rig.chat_log())
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ponder", "mcp"], env=operator_env(mcp_rig, disk)
    )
    outside = [str(disk / "private"), str(disk / "docs" / ".." / "private")]
    async with Client(params) as client:
        for folder in outside:
            result = await client.call_tool(
                "research", {"question": "What is the tide bonus?", "docs": [folder]}
            )
            assert is_refused(result, "outside this server's document folders"), text_of(result)
            found = await client.call_tool(
                "search_documents", {"query": "tide bonus", "docs": [folder]}
            )
            assert is_refused(found, "outside this server's document folders"), text_of(found)
        for raw, says in (("tides\x00.md", "NUL byte"), ("~nosuchuser/docs", "~name names")):
            result = await client.call_tool("research", {"question": "Tides?", "docs": [raw]})
            assert is_refused(result, says), text_of(result)
            found = await client.call_tool("search_documents", {"query": "x", "docs": [raw]})
            assert is_refused(found, says), text_of(found)
        result = await client.call_tool("research", {"question": "Tides?", "search": "tavily"})
        assert is_refused(result, "search='tavily' is not enabled here")
        for hidden in (disk / "docs" / ".notes", disk / "docs" / ".notes" / "bonus.md"):
            found = await client.call_tool(
                "search_documents", {"query": "tide bonus", "docs": [str(hidden)]}
            )
            assert is_refused(found, "hidden file or folder"), text_of(found)
        # Every choice of folders inside the offered one shares its one index.
        docs = disk / "docs"
        for chosen in ([docs, docs / "charts"], [docs / "charts"], [docs, docs / "tides.md"]):
            found = await client.call_tool(
                "search_documents", {"query": "tide bonus", "docs": [str(p) for p in chosen]}
            )
            assert not found.is_error and SECRET not in text_of(found), text_of(found)
        assert len(list((disk / "cache" / "indexes").glob("*.sqlite"))) == 1
        result = await client.call_tool("resume", {"run_id": theirs.thread_id})
        assert is_refused(result, f"No run with id {theirs.thread_id!r} on this server")
        assert len(mcp_rig.chat_log()) == calls  # none of it reached the model
        # The server goes on, and a caller's own choices hold.
        found = await client.call_tool("search_documents", {"query": "pilots tide tables"})
        done = await client.call_tool(
            "research", {"question": "How do tides work?", "mode": "loop", "max_loops": 1}
        )
    assert not found.is_error and "harbours.rst" in text_of(found)
    assert not done.is_error and text_of(done).startswith("# ")
    assert SECRET not in text_of(done) and SECRET not in str(done.structured_content)
    assert (done.structured_content or {})["run_id"].startswith("mcp-")


@pytest.fixture(scope="module")
def loopback(mcp_rig: Rig, disk: Path) -> Iterator[str]:
    process, port = serve_mcp_http(operator_env(mcp_rig, disk), "127.0.0.1")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def networked(mcp_rig: Rig, disk: Path) -> Iterator[str]:
    """Listening on every address, so a token is required."""
    process, port = serve_mcp_http(operator_env(mcp_rig, disk, PONDER_MCP_TOKEN=TOKEN), "0.0.0.0")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "probe", "version": "0"}},
}  # fmt: skip
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def test_on_loopback_a_rebound_name_or_a_foreign_page_is_turned_away(
    loopback: str,
) -> None:
    async with httpx.AsyncClient() as http:
        rebound = await http.post(loopback, json=INITIALIZE,
                                  headers={**ACCEPT, "Host": "evil.example:80"})  # fmt: skip
        foreign = await http.post(loopback, json=INITIALIZE,
                                  headers={**ACCEPT, "Origin": "http://evil.example"})  # fmt: skip
        own = await http.post(loopback, json=INITIALIZE, headers=ACCEPT)
    assert rebound.status_code == 421 and foreign.status_code == 403
    assert own.status_code == 200
    async with Client(loopback) as client:  # the official client, as a local agent uses it
        found = await client.call_tool("search_documents", {"query": "tide bonus", "docs": ["/"]})
    assert is_refused(found, "outside this server's document folders")


async def test_off_loopback_a_token_is_required(networked: str) -> None:
    async with httpx.AsyncClient() as http:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            answer = await http.post(networked, json=INITIALIZE, headers={**ACCEPT, **headers})
            assert answer.status_code == 401, answer.text
    with pytest.raises(ExceptionGroup) as failed:  # the official client, without the token
        async with Client(networked) as client:
            await client.list_tools()
    assert failed.group_contains(MCPError)
    authorised = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    async with (
        authorised,
        Client(streamable_http_client(networked, http_client=authorised)) as client,
    ):
        names = {tool.name for tool in (await client.list_tools()).tools}
        found = await client.call_tool("search_documents", {"query": "pilots tide tables"})
        escaped = await client.call_tool(
            "search_documents", {"query": "tide bonus", "docs": ["~", "/"]}
        )
    assert names == {"research", "resume", "search_documents"}
    assert "harbours.rst" in text_of(found)
    assert is_refused(escaped, "outside this server's document folders")


def test_listening_off_loopback_without_a_token_is_refused_before_binding(
    mcp_rig: Rig, disk: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ponder", "mcp", "--http", "0", "--host", "0.0.0.0"],
        env=operator_env(mcp_rig, disk), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "PONDER_MCP_TOKEN" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("tokens", "said"),
    [
        ({"PONDER_MCP_TOKENS": "shared=s-secret,bob=b-secret"}, "another name"),
        ({"PONDER_MCP_TOKENS": "alice=one,bob=one"}, "same token"),
        ({"PONDER_MCP_TOKENS": "alice=one", "PONDER_MCP_TOKEN": "one"}, "same token"),
    ],
)
def test_users_that_would_be_taken_for_others_are_refused_before_binding(
    tokens: dict[str, str], said: str, mcp_rig: Rig, disk: Path
) -> None:
    """A user named "shared" would see the runs of the shared token's holders; a token two
    users share would make one of them the other."""
    done = subprocess.run(
        [sys.executable, "-m", "ponder", "mcp", "--http", "0", "--host", "0.0.0.0"],
        env=operator_env(mcp_rig, disk, **tokens), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert said in done.stderr and "Traceback" not in done.stderr


async def test_a_caller_is_held_to_the_operators_ceilings_and_runs_at_once(
    mcp_rig: Rig, disk: Path
) -> None:
    env = operator_env(mcp_rig, disk, PONDER_CALLER_MAX_LOOPS="2", PONDER_CALLER_RUNS="1")
    params = StdioServerParameters(command=sys.executable, args=["-m", "ponder", "mcp"], env=env)
    question = {"question": "How do tides work?", "mode": "loop", "max_loops": 1}
    steady = mcp_rig.backend
    async with Client(params) as client:
        result = await client.call_tool("research", {**question, "max_loops": 3})
        assert is_refused(result, "max_loops=3 is above this server's ceiling of 2",
                          "PONDER_CALLER_MAX_LOOPS")  # fmt: skip
        mcp_rig.backend = ScriptedBackend(delay=0.5)  # a run that takes a few seconds
        try:
            calls = len(mcp_rig.chat_log())  # the module's earlier tests asked it too
            first = asyncio.create_task(client.call_tool("research", question))
            while len(mcp_rig.chat_log()) == calls:  # until the first run is under way
                assert not first.done(), text_of(first.result())
                await asyncio.sleep(0.05)
            second = await client.call_tool("research", question)
            assert is_refused(second, "You already have 1 run running or queued here",
                              "PONDER_CALLER_RUNS=1")  # fmt: skip
            assert not (await first).is_error
        finally:
            mcp_rig.backend = steady
        third = await client.call_tool("research", question)  # the first one's slot is free
    assert not third.is_error and text_of(third).startswith("# ")


USERS = {"alice": "mcp-alice-3c1d", "bob": "mcp-bob-9e07"}


@pytest.fixture(scope="module")
def per_user(mcp_rig: Rig, disk: Path) -> Iterator[str]:
    """Listening on every address with a token per user."""
    tokens = ",".join(f"{user}={token}" for user, token in USERS.items())
    process, port = serve_mcp_http(operator_env(mcp_rig, disk, PONDER_MCP_TOKENS=tokens), "0.0.0.0")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextlib.asynccontextmanager
async def as_user(url: str, user: str) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {USERS[user]}"})
    async with http, Client(streamable_http_client(url, http_client=http)) as client:
        yield client


async def test_a_run_is_its_owners_alone_to_resume(per_user: str, mcp_rig: Rig) -> None:
    scripted, mcp_rig.backend = mcp_rig.backend, ScriptedBackend()
    ask_once(mcp_rig.backend)
    try:
        async with as_user(per_user, "alice") as alice:
            paused = await alice.call_tool(
                "research", {"question": "Tides and harbours", "mode": "deep", "max_loops": 1}
            )
            run_id = (paused.structured_content or {})["run_id"]
            # 128 random bits after the start time: not to be guessed, nor tried in a day.
            assert re.fullmatch(r"mcp-\d{8}-\d{6}-[0-9a-f]{32}", run_id), run_id
            calls = len(mcp_rig.chat_log())
            async with as_user(per_user, "bob") as bob:
                theirs = await bob.call_tool("resume", {"run_id": run_id, "answer": "Mine now"})
                unknown = await bob.call_tool("resume", {"run_id": run_id[:-4] + "0000"})
            # Refused exactly as a run that does not exist: bob learns nothing of it.
            assert is_refused(theirs, f"No run with id {run_id!r} on this server")
            assert text_of(theirs).replace(run_id, "?") == text_of(unknown).replace(
                run_id[:-4] + "0000", "?"
            )
            assert len(mcp_rig.chat_log()) == calls  # bob's attempt ran nothing
            done = await alice.call_tool("resume", {"run_id": run_id, "answer": "The Atlantic"})
    finally:
        mcp_rig.backend = scripted
    assert not done.is_error and (done.structured_content or {})["status"] == "done"
    brief = [e for e in mcp_rig.chat_log() if e.schema == "ResearchBrief"]
    assert brief and "The Atlantic" in brief[-1].messages[-1]["content"]
    assert "Mine now" not in str([e.messages for e in mcp_rig.chat_log()])


async def test_each_user_needs_their_own_token(per_user: str) -> None:
    async with httpx.AsyncClient() as http:
        for headers in ({}, {"Authorization": "Bearer mcp-carol-0000"}, {"Authorization": TOKEN}):
            answer = await http.post(per_user, json=INITIALIZE, headers={**ACCEPT, **headers})
            assert answer.status_code == 401, answer.text
    for user in USERS:
        async with as_user(per_user, user) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} >= {"resume"}


async def test_a_caller_sees_no_host_endpoint_or_file_of_the_operator(
    mcp_rig: Rig, disk: Path
) -> None:
    from support import free_port

    searxng = f"http://127.0.0.1:{free_port()}"  # nothing listens: its failure is a warning
    env = operator_env(
        mcp_rig, disk, PONDER_CALLER_SEARCHES="local,searxng", PONDER_SEARXNG_URL=searxng
    )
    params = StdioServerParameters(command=sys.executable, args=["-m", "ponder", "mcp"], env=env)
    async with Client(params) as client:
        done = await client.call_tool("research", {
            "question": "How do tides work?", "search": "searxng", "mode": "loop",
            "max_loops": 1})  # fmt: skip
    assert not done.is_error, text_of(done)
    stats = (done.structured_content or {})["stats"]
    assert list(stats["host_calls"]) == ["ollama host 1"]  # not the operator's Ollama URL
    assert any("[searxng_url]" in w for w in stats["warnings"]), stats["warnings"]
    everything = text_of(done) + str(done.structured_content)
    assert mcp_rig.url not in everything and searxng not in everything
    assert str(disk / "cache") not in everything and str(disk / "data") not in everything
    # The model server down: the error says so, not where it is.
    down = f"http://127.0.0.1:{free_port()}"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ponder", "mcp"],
        env={**env, "OLLAMA_HOST": down},
    )  # fmt: skip
    async with Client(params) as client:
        failed = await client.call_tool("research", {"question": "Tides?", "mode": "loop"})
    assert failed.is_error and "[ollama host 1]" in text_of(failed), text_of(failed)
    assert down not in text_of(failed)


async def test_a_resume_is_a_new_request_checked_against_todays_folders(
    mcp_rig: Rig, tmp_path: Path
) -> None:
    """The operator revokes a folder and restarts: resuming a run that searched it is
    refused, saying why; a run whose caller named no folder goes on with today's."""
    first, second = write_corpus(tmp_path / "first"), write_corpus(tmp_path / "second")
    (tmp_path / "disk").mkdir()

    def server(roots: Path) -> StdioServerParameters:
        env = operator_env(mcp_rig, tmp_path / "disk", PONDER_DOCS_ROOTS=str(roots))
        del env["PONDER_DOCS"]
        return StdioServerParameters(command=sys.executable, args=["-m", "ponder", "mcp"], env=env)

    async with Client(server(first)) as client:
        named = await client.call_tool(
            "research", {"question": "How do tides work?", "docs": [str(first)]}
        )
        unnamed = await client.call_tool("research", {"question": "How do tides work?"})
    assert not named.is_error and not unnamed.is_error, text_of(named) + text_of(unnamed)
    runs = [(r.structured_content or {})["run_id"] for r in (named, unnamed)]
    async with Client(server(second)) as client:  # `first` is no longer offered
        refused = await client.call_tool("resume", {"run_id": runs[0]})
        goes_on = await client.call_tool("resume", {"run_id": runs[1]})
    assert is_refused(refused, "outside this server's document folders"), text_of(refused)
    assert not goes_on.is_error, text_of(goes_on)
