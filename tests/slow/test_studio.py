"""`langgraph dev` serves the graph offline; a run through its HTTP API returns a report.

The server is a bare `langgraph dev` (no authentication) whose environment holds its
operator's settings: a caller's per-question settings are taken, and the graph refuses the
rest by itself (the last test here).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import Site, respond, write_corpus
from support.langgraph_dev import langgraph_cli, langgraph_dev

from ponder.testing import Rig, ScriptedBackend


@pytest.fixture(scope="module")
def web() -> Iterator[Site]:
    server = searxng_with_pages()
    yield server
    server.close()


@pytest.fixture(scope="module")
def studio_rig() -> Iterator[Rig]:
    with Rig(ScriptedBackend(), models=("scripted",)) as running:
        yield running


@pytest.fixture(scope="module")
def studio_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("studio") / "docs")


@pytest.fixture(scope="module")
def studio(
    tmp_path_factory: pytest.TempPathFactory, studio_rig: Rig, studio_docs: Path, web: Site
) -> Iterator[str]:
    """A bare `langgraph dev` (no authentication), its operator's settings in its environment:
    the rig for Ollama, a SearXNG stand-in whose pages are on 127.0.0.1."""
    if langgraph_cli() is None:
        pytest.skip("langgraph-cli is not installed (pip install -e '.[dev]')")
    folder = tmp_path_factory.mktemp("studio-server")
    env = {
        "OLLAMA_HOST": studio_rig.url,
        "PONDER_MODEL": "scripted",
        "PONDER_DOCS": str(studio_docs),
        "PONDER_SEARXNG_URL": web.url,
        "PONDER_CALLER_SEARCHES": "local,searxng",
        "PONDER_ALLOW_PRIVATE_URLS": "true",  # the stand-in's pages are on loopback
        "PONDER_FETCH_FULL_PAGE": "true",
        "PONDER_DATA_DIR": str(folder / "data"),
        "PONDER_CACHE_DIR": str(folder / "cache"),
    }
    with langgraph_dev(folder, env, auth=False) as url:
        yield url


def searxng_with_pages() -> Site:
    """A SearXNG JSON API on 127.0.0.1 whose results link to pages on the same server."""
    web = Site()
    results = [{"url": f"{web.url}/page/{i}", "title": f"Page {i}", "content": "Tides."}
               for i in range(2)]  # fmt: skip
    web.routes["/search"] = respond(json.dumps({"results": results}), "application/json")
    page = "<p>Tides rise twice a day because the Moon pulls the oceans.</p>" * 5
    for i in range(2):
        web.routes[f"/page/{i}"] = respond(f"<html><body><article>{page}</article></body></html>")
    return web


def run_config(docs: Path, **extra: object) -> dict[str, object]:
    """What a caller sends: per-question settings only (the operator's are the server's)."""
    settings = {"search": "local", "docs": [str(docs)], "mode": "loop", "max_loops": 1}
    return {"configurable": {**settings, **extra}}


def run_and_wait(client: httpx.Client, config: dict[str, object]) -> dict[str, object]:
    thread = client.post("/threads", json={}).json()["thread_id"]
    result = client.post(
        f"/threads/{thread}/runs/wait",
        json={"assistant_id": "ponder", "input": {"topic": "How do tides work?"}, "config": config},
    )
    assert result.status_code == 200, result.text
    output = result.json()
    assert "report" in output, output  # an error comes back as {"__error__": ...}
    return dict(output)


def test_langgraph_dev_serves_the_graph_and_runs_return_reports(
    studio: str, studio_rig: Rig, studio_docs: Path, web: Site
) -> None:
    with httpx.Client(base_url=studio, timeout=120) as client:
        assistants = client.post("/assistants/search", json={"graph_id": "ponder"}).json()
        assert assistants, "the ponder graph is not registered"
        schemas = client.get(f"/assistants/{assistants[0]['assistant_id']}/schemas").json()
        assert set(schemas["input_schema"]["properties"]) == {"topic", "messages"}
        settings = schemas.get("context_schema") or schemas["config_schema"]
        assert settings["properties"]["max_loops"]["default"] == 3
        assert settings["properties"]["max_loops"]["description"]
        assert settings["properties"]["max_loops"]["settable_by"] == "caller"
        assert settings["properties"]["ollama_base_url"]["settable_by"] == "operator"
        loop = run_and_wait(client, run_config(studio_docs))
        deep = run_and_wait(client, run_config(studio_docs, mode="deep", allow_clarification=False))
        # Web search with the on-disk cache and full pages: nothing may block the loop.
        online = run_and_wait(client, run_config(studio_docs, search="searxng"))
    for output in (loop, deep, online):
        report = str(output["report"])
        assert report.startswith("# ") and "## Sources" in report and "[1]" in report
        assert output["sources"]
    assert any(e.schema == "SupervisorDecision" for e in studio_rig.chat_log())
    assert any(path.startswith("/page/") for path in web.hits)  # pages were read
    assert all(s["url"].startswith(web.url) for s in online["sources"])  # type: ignore[index,union-attr]


# -- a hostile caller, with no authentication in front of the graph ------------------------


def touch_server(flag: Path) -> dict[str, object]:
    """An MCP server spec whose command would create ``flag`` if anything ran it."""
    return {"name": "pwn", "command": ["/bin/sh", "-c", f"touch {flag}"], "tools": ["search"]}


async def test_the_graph_itself_refuses_what_only_the_operator_sets(
    studio: str, studio_rig: Rig, studio_docs: Path, tmp_path: Path
) -> None:
    """No auth handler: the graph's nodes refuse a caller's operator-only settings, whether
    sent as configurable, as context or inside an assistant; nothing runs, the server goes on."""
    from langgraph_sdk import get_client

    client = get_client(url=studio)
    flag = tmp_path / "pwned"
    thief = Site()  # where a caller would like the server's prompts and queries to go
    spy = {"name": "spy", "url": f"{thief.url}/mcp", "tools": ["search"]}
    assistant = await client.assistants.create(
        "ponder", config={"configurable": {"search": "searxng", "searxng_url": thief.url}}
    )
    attacks: list[tuple[dict[str, Any], str]] = [
        ({"config": {"configurable": {"search": "hybrid", "mcp_servers": [touch_server(flag)]}}},
         "mcp_servers is set by the server's operator"),
        ({"context": {"search": "local", "ollama_base_url": thief.url}},
         "ollama_base_url is set by the server's operator"),
        ({"context": {"search": "local", "mcp_servers": [spy]}},
         "mcp_servers is set by the server's operator"),
        ({"config": {"configurable": {"docs": [str(tmp_path)]}}},
         "lie outside this server's document folders"),
        ({"config": {"configurable": {"__ponder_served__": False, "num_ctx": 1_048_576}}},
         "num_ctx is set by the server's operator"),
        ({"config": {"configurable": {"fetch_full_page": False}}},
         "fetch_full_page is the operator's to set on this server"),
        ({"assistant_id": assistant["assistant_id"]},
         "searxng_url is set by the server's operator"),
    ]  # fmt: skip
    calls_before = len(studio_rig.chat_log())
    try:
        for attack, refusal in attacks:
            thread = (await client.threads.create())["thread_id"]
            graph = attack.pop("assistant_id", "ponder")
            with pytest.raises(Exception, match="CallerRefusedError") as refused:
                await client.runs.wait(thread, graph, input={"topic": "How do tides work?"},
                                       **attack)  # fmt: skip
            assert refusal in str(refused.value)
        assert len(studio_rig.chat_log()) == calls_before  # no run got as far as the model
        assert not flag.exists() and thief.hits == []
        # The server goes on serving, and a caller's own per-question settings still count.
        thread = (await client.threads.create())["thread_id"]
        done = await client.runs.wait(
            thread, "ponder", input={"topic": "Why are there two high tides a day?"},
            config=run_config(studio_docs, max_loops=2, queries_per_round=1),
        )  # fmt: skip
    finally:
        thief.close()
    assert str(done["report"]).startswith("# ") and done["sources"]
    state = await client.threads.get_state(thread)
    assert state["values"]["research_loop_count"] == 2
