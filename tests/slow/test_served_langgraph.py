"""A hostile caller against a team's LangGraph Server (`langgraph dev` with ponder's auth
handler), through langgraph-sdk: every attack of issue 19 is refused with a message that
names the setting, before anything is stored or run; the server goes on serving; one user
never sees, reads or resumes another's threads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from support import TAVILY_KEY, TavilyServer
from support.langgraph_dev import TOKENS, Team

from ponder.testing import ScriptedBackend

TOPIC = {"topic": "How do tides work?"}


def status_of(exc: BaseException) -> int:
    assert isinstance(exc, httpx.HTTPStatusError), exc
    return exc.response.status_code


def detail_of(exc: BaseException) -> str:
    assert isinstance(exc, httpx.HTTPStatusError), exc
    return str(exc.response.json().get("detail"))


async def refused(work: Any) -> str:
    """The 403 a request gets, as the server words it."""
    with pytest.raises(httpx.HTTPStatusError) as caught:
        await work
    assert status_of(caught.value) == 403, caught.value.response.text
    return detail_of(caught.value)


async def denied(work: Any) -> None:
    """Refused (403), or not found (404), or answered with nothing: never bob's to see."""
    try:
        result = await work
    except httpx.HTTPStatusError as exc:
        assert status_of(exc) in (403, 404), exc.response.text
        return
    assert not result, result


async def test_each_attack_is_refused_and_the_server_goes_on(
    team: Team, team_scripted: ScriptedBackend, tmp_path: Path
) -> None:
    client = team.client("alice")
    flag = tmp_path / "pwned"
    touch = {"name": "pwn", "command": ["/bin/sh", "-c", f"touch {flag}"], "tools": ["search"]}
    callers_tavily = TavilyServer()  # where a caller would like the operator's key to go
    threads_before = len(await client.threads.search(limit=1000))
    try:
        thread = (await client.threads.create())["thread_id"]
        run = client.runs.create
        # 1. A command for the server to run, as an MCP server of hybrid search.
        said = await refused(run(thread, "ponder", input=TOPIC, config={
            "configurable": {"search": "hybrid", "mcp_servers": [touch]}}))  # fmt: skip
        assert "mcp_servers is set by the server's operator" in said
        assert "search='hybrid' is not enabled here" in said
        # 2. A folder the operator never offered, directly or climbing out of the offered one.
        for folder in (team.outside, team.docs / ".." / team.outside.name):
            said = await refused(run(thread, "ponder", input=TOPIC, config={
                "configurable": {"search": "local", "docs": [str(folder)]}}))  # fmt: skip
            assert "outside this server's document folders" in said
        # 3. The operator's Tavily key sent to the caller's own server (as context).
        said = await refused(run(thread, "ponder", input=TOPIC, context={
            "search": "tavily", "tavily_url": callers_tavily.url}))  # fmt: skip
        assert "tavily_url is set by the server's operator" in said
        # 4. The server's prompts and queries to a host of the caller's choosing; the
        #    operator's private network through the page reader.
        for setting in (
            {"ollama_base_url": callers_tavily.url},
            {"searxng_url": callers_tavily.url},
            {"allow_private_urls": True},
        ):
            said = await refused(run(thread, "ponder", input=TOPIC, context=setting))
            assert f"{next(iter(setting))} is set by the server's operator" in said
        # 5. The same through an assistant, made or changed to carry it.
        said = await refused(client.assistants.create(
            "ponder", config={"configurable": {"mcp_servers": [touch]}}))  # fmt: skip
        assert "mcp_servers is set by the server's operator" in said
        mine = await client.assistants.create("ponder", context={"max_loops": 1})
        said = await refused(client.assistants.update(
            mine["assistant_id"], context={"tavily_url": callers_tavily.url}))  # fmt: skip
        assert "tavily_url is set by the server's operator" in said
        # A value out of its bounds is a clear error too, not a failed run.
        with pytest.raises(httpx.HTTPStatusError) as caught:
            await run(thread, "ponder", input=TOPIC, context={"max_loops": 99})
        assert status_of(caught.value) == 422 and "max_loops" in detail_of(caught.value)
        # Nothing ran, nothing was read, no key left; no run was even stored.
        assert not flag.exists() and callers_tavily.requests == [] and team.rig.chat_log() == []
        assert await client.runs.list(thread) == []
        assert len(await client.threads.search(limit=1000)) == threads_before + 1
        # The server goes on serving: a caller's own per-question settings hold, and a
        # Tavily search uses the operator's key at the operator's Tavily.
        done = await client.runs.wait(thread, mine["assistant_id"], input=TOPIC,
                                      context={"search": "tavily", "mode": "loop"})  # fmt: skip
    finally:
        callers_tavily.close()
    assert str(done["report"]).startswith("# ") and done["sources"]
    assert team.tavily.requests and callers_tavily.requests == []
    assert all(r["auth"] == f"Bearer {TAVILY_KEY}" for r in team.tavily.requests)
    state = await client.threads.get_state(thread)
    assert state["values"]["research_loop_count"] == 1  # the assistant's max_loops=1
    assert "secret-ledger" not in str(state["values"])


async def test_a_path_that_cannot_name_a_file_is_refused_not_a_server_error(team: Team) -> None:
    client = team.client("alice")
    thread = (await client.threads.create())["thread_id"]
    for raw, says in (("tides\x00.md", "NUL byte"), ("~nosuchuser/docs", "~name names")):
        said = await refused(client.runs.create(thread, "ponder", input=TOPIC, context={
            "search": "local", "docs": [raw]}))  # fmt: skip
        assert says in said
        said = await refused(client.runs.create(thread, "ponder", input=TOPIC, config={
            "configurable": {"docs": [str(team.docs), raw]}}))  # fmt: skip
        assert says in said
    assert await client.runs.list(thread) == []


async def test_only_the_documents_the_operator_offers_come_back(
    team: Team, team_scripted: ScriptedBackend
) -> None:
    client = team.client("alice")
    thread = (await client.threads.create())["thread_id"]
    done = await client.runs.wait(thread, "ponder", input=TOPIC, config={
        "configurable": {"search": "local", "docs": [str(team.docs)], "mode": "loop",
                         "max_loops": 1}})  # fmt: skip
    assert done["sources"]
    assert all(Path(s["url"]).parent == team.docs for s in done["sources"])
    # A link out of the folder and a hidden folder in it are not offered.
    thread = (await client.threads.create())["thread_id"]
    asked = {"topic": "What is the tide bonus?"}
    settings = {"search": "local", "mode": "loop", "max_loops": 1}
    bonus = await client.runs.wait(thread, "ponder", input=asked, context=settings)
    assert "secret-ledger" not in str(bonus)
    said = await refused(client.runs.create(thread, "ponder", input=TOPIC, context={
        "search": "local", "docs": [str(team.docs / ".drafts")]}))  # fmt: skip
    assert "hidden file or folder" in said


async def test_a_caller_reads_no_host_endpoint_or_file_of_the_operator(
    team: Team, team_scripted: ScriptedBackend
) -> None:
    client = team.client("alice")
    thread = (await client.threads.create())["thread_id"]
    done = await client.runs.wait(thread, "ponder", input=TOPIC, context={
        "search": "searxng", "mode": "loop", "max_loops": 1})  # fmt: skip
    state = (await client.threads.get_state(thread))["values"]
    stats = state["stats"]
    assert list(stats["host_calls"]) == ["ollama host 1"]  # the caller's to read: no URL
    assert any("[searxng_url]" in w for w in stats["warnings"]), stats["warnings"]
    everything = str(done) + str(state)
    assert team.rig.url not in everything and "127.0.0.1" not in everything
    assert str(team.docs.parent / "server-cache") not in everything


async def test_without_a_known_token_every_request_gets_401(team: Team) -> None:
    async with httpx.AsyncClient(base_url=team.url) as http:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "tok"}):
            for method, path, body in (("POST", "/threads/search", {}),
                                       ("POST", "/threads", {}),
                                       ("POST", "/runs/wait", {"assistant_id": "ponder",
                                                               "input": TOPIC})):  # fmt: skip
                answer = await http.request(method, path, json=body, headers=headers)
                assert answer.status_code == 401, (path, headers, answer.text)
        answer = await http.post("/threads/search", json={}, headers={"Authorization": "x"})
        assert "Authorization: Bearer TOKEN" in answer.text  # says what to send


async def test_one_user_cannot_list_read_or_resume_anothers_threads(
    team: Team, team_scripted: ScriptedBackend
) -> None:
    alice, bob = team.client("alice"), team.client("bob")
    thread = (await alice.threads.create(metadata={"ponder_topic": "tides"}))["thread_id"]
    await alice.runs.wait(thread, "ponder", input=TOPIC, config={
        "configurable": {"search": "local", "mode": "loop", "max_loops": 1}})  # fmt: skip
    assert thread in {t["thread_id"] for t in await alice.threads.search(limit=1000)}
    assert thread not in {t["thread_id"] for t in await bob.threads.search(limit=1000)}
    calls = len(team.rig.chat_log())
    for attempt in (
        bob.threads.get(thread),
        bob.threads.get_state(thread),
        bob.threads.get_history(thread),
        bob.runs.list(thread),
        bob.runs.wait(thread, "ponder", input=TOPIC),  # resume it, or run on it
        bob.runs.wait(thread, "ponder", command={"resume": "the Atlantic"}),
        bob.threads.update(thread, metadata={"owner": "bob"}),
        bob.threads.delete(thread),
    ):
        await denied(attempt)
    assert len(team.rig.chat_log()) == calls  # bob's attempts ran nothing
    kept = await alice.threads.get(thread)  # still alice's, unchanged
    assert kept["metadata"]["owner"] == "alice" and kept["metadata"]["ponder_topic"] == "tides"
    assert (await alice.threads.get_state(thread))["values"]["report"]


async def test_the_studio_shortcut_of_langgraph_dev_gets_no_further(team: Team) -> None:
    """`langgraph dev` (not a built server) lets LangGraph Studio in without a token, by a
    header anyone can send; that user still sees only its own threads and may send only
    caller settings. (docs/deploy.md: a team runs the built server, or sets
    disable_studio_auth.)"""
    async with httpx.AsyncClient(base_url=team.url, headers={"x-auth-scheme": "langsmith"}) as http:
        listed = await http.post("/threads/search", json={"limit": 1000})
        assert listed.status_code == 200, listed.text  # in, without a token
        owners = {t["metadata"].get("owner") for t in listed.json()}
        assert not owners & set(TOKENS), owners
        thread = (await http.post("/threads", json={})).json()["thread_id"]
        answer = await http.post(f"/threads/{thread}/runs", json={
            "assistant_id": "ponder", "input": TOPIC,
            "config": {"configurable": {"allow_private_urls": True}}})  # fmt: skip
        assert answer.status_code == 403 and "allow_private_urls" in answer.text
