"""MCP tools as research sources: a server started by the tests (tests/support/servers/tidebook.py)
serves a search tool; hybrid search calls it through the official MCP client, and a run
cites what it returned as mcp://server/tool. A failing or hanging server is a backend
failure, never a crash."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from support import SERVERS
from support.edges import history
from test_faults_search import Engine, patch_ddgs

from ponder import aresearch
from ponder.core.errors import ConfigurationError
from ponder.services.search.base import SearchBackendError
from ponder.services.search.mcp_tools import McpToolSearch
from ponder.settings.configuration import Configuration
from ponder.settings.mcp_servers import McpServerSpec
from ponder.testing import Rig

TIDEBOOK = str(SERVERS / "tidebook.py")


def tidebook(**extra: Any) -> dict[str, Any]:
    return {"name": "tidebook", "command": [sys.executable, TIDEBOOK], "tools": ["lookup"]} | extra


@pytest.fixture
def offline_web(monkeypatch: pytest.MonkeyPatch) -> None:
    """The web side fails at once (no network here), as a dead network would."""
    patch_ddgs(monkeypatch, Engine("fail"))


async def test_a_run_cites_what_an_mcp_tool_returned(
    rig: Rig, corpus: Path, offline_web: None
) -> None:
    report = await aresearch(
        "When do spring tides come?", model="scripted", ollama_base_url=rig.url,
        search="hybrid", docs=[str(corpus)], mcp_servers=[tidebook()],
        searxng_url="http://127.0.0.1:9", mode="loop", max_loops=1, cache=False,
    )  # fmt: skip
    from_mcp = [s for s in report.sources if s.url.startswith("mcp://tidebook/lookup")]
    assert from_mcp and all(s.origin == "mcp" for s in from_mcp)
    assert any("new and full Moon" in p for s in from_mcp for p in s.passages)
    assert any(s.url.startswith("mcp://") for s in report.cited_sources())


async def test_each_text_block_is_a_result_addressed_by_server_and_tool() -> None:
    found = await McpToolSearch(McpServerSpec(**tidebook()), "lookup").search("neap bore", 5)
    assert [r.url for r in found] == [
        "mcp://tidebook/lookup/1?query=neap%20bore",
        "mcp://tidebook/lookup/2?query=neap%20bore",
    ]
    from ponder.core.sources import source_key

    assert len({source_key(r.url) for r in found}) == 2  # two sources, not one
    assert "quarter Moons" in found[0].content or "quarter Moons" in found[1].content


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (tidebook(command=[sys.executable, "-c", "import sys; sys.exit(3)"]), "failed"),
        (tidebook(command=[sys.executable, "-c", "import time; time.sleep(30)"], timeout=2),
         "no answer within 2s"),
        (tidebook(tools=["stats"]), "takes no query string"),
        (tidebook(tools=["missing"]), "has no tool 'missing'"),
    ],
)  # fmt: skip
async def test_a_server_that_fails_or_hangs_is_a_backend_failure(
    spec: dict[str, Any], problem: str
) -> None:
    backend = McpToolSearch(McpServerSpec(**spec), spec["tools"][0])
    with pytest.raises(SearchBackendError, match=problem):
        await backend.search("spring tides", 3)


async def test_a_broken_server_costs_a_warning_and_the_run_goes_on(
    rig: Rig, corpus: Path, offline_web: None
) -> None:
    broken = tidebook(command=[sys.executable, "-c", "import sys; sys.exit(3)"])
    report = await aresearch(
        "How do tides work?", model="scripted", ollama_base_url=rig.url, search="hybrid",
        docs=[str(corpus)], mcp_servers=[broken], searxng_url="http://127.0.0.1:9",
        mode="loop", max_loops=1, cache=False,
    )  # fmt: skip
    assert report.cited_sources()  # the documents answered
    assert any("mcp:tidebook/lookup" in w for w in report.stats.warnings)


def test_servers_come_from_the_environment_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("PONDER_MCP_SERVERS", json.dumps([tidebook()]))
    [spec] = Configuration.create().mcp_servers
    assert spec.name == "tidebook" and spec.tools == ["lookup"]
    monkeypatch.setenv("PONDER_MCP_SERVERS", '[{"name": "x", "tools": ["t"]}]')
    with pytest.raises(ConfigurationError, match="needs a command or a url"):
        Configuration.create()


async def test_mcp_servers_are_not_kept_in_the_run_history(
    rig: Rig, corpus: Path, offline_web: None
) -> None:

    secret = tidebook(env={"WIKI_TOKEN": "s3cret"})
    report = await aresearch(
        "When do spring tides come?", model="scripted", ollama_base_url=rig.url,
        search="hybrid", docs=[str(corpus)], mcp_servers=[secret],
        searxng_url="http://127.0.0.1:9", mode="loop", max_loops=1, cache=False,
    )  # fmt: skip
    record = history().get(report.thread_id)
    assert record is not None and "mcp_servers" not in record.config
    assert "s3cret" not in str(record.config)
