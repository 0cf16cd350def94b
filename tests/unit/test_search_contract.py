"""The contract every search backend honours: result shape, empty results, failures,
cancellation. Each backend is driven at its own boundary (a fake transport, patched ddgs,
a written corpus; Wikipedia and arXiv answer as tests/support/public_apis.py's servers do), never
through the internet."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from ddgs.exceptions import DDGSException
from support import SERVERS
from support.edges import cache_dir

from ponder.services.search import arxiv as arxiv_module
from ponder.services.search import duckduckgo
from ponder.services.search.arxiv import ArxivSearch
from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult
from ponder.services.search.cached import CachedSearch
from ponder.services.search.duckduckgo import DuckDuckGoSearch
from ponder.services.search.fallback import FallbackSearch
from ponder.services.search.hybrid import HybridSearch
from ponder.services.search.local.backend import LocalSearch
from ponder.services.search.local.index import LocalIndex
from ponder.services.search.mcp_tools import McpToolSearch
from ponder.services.search.pacing import Pace
from ponder.services.search.searxng import SearxngSearch
from ponder.services.search.tavily import TavilySearch
from ponder.services.search.wikipedia import WikipediaSearch
from ponder.services.storage.cache import Cache
from ponder.settings.mcp_servers import McpServerSpec

MODES = ("results", "empty", "failing", "slow")
Factory = Callable[[str, Path, pytest.MonkeyPatch], SearchBackend]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(duckduckgo, "DEFAULT_BACKOFF", 0.01)


def searxng(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    async def handler(request: httpx.Request) -> httpx.Response:
        if mode == "failing":
            return httpx.Response(502, text="bad gateway")
        if mode == "slow":
            await asyncio.sleep(5)
        count = 0 if mode == "empty" else 8
        results = [
            {"title": f"T{i}", "url": f"https://s.example/{i}", "content": "c"}
            for i in range(count)
        ]
        return httpx.Response(200, text=json.dumps({"results": results}))

    return SearxngSearch("http://searx.invalid", transport=httpx.MockTransport(handler))


def _public_api(answer: Any, mode: str) -> httpx.MockTransport:
    """A transport answering as the local API servers of tests/support/public_apis.py do."""
    from support.public_apis import FakeApi, Request

    fake = FakeApi.__new__(FakeApi)  # its answers only, no server
    fake.mode, fake.queue, fake.url = mode, [], "http://api.invalid"

    async def handler(request: httpx.Request) -> httpx.Response:
        if mode == "slow":
            await asyncio.sleep(5)
        params = dict(request.url.params)
        status, headers, body = answer(fake, Request(request.url.path, params, "", 0.0))
        return httpx.Response(status, headers=headers, content=body)

    return httpx.MockTransport(handler)


def wikipedia(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    from support.public_apis import mediawiki

    fake_mode = {"failing": "badvalue"}.get(mode, mode)
    return WikipediaSearch(
        "http://api.invalid/w/api.php", transport=_public_api(mediawiki, fake_mode)
    )


def arxiv(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    from support.public_apis import arxiv as feed

    monkeypatch.setattr(arxiv_module, "PACE", Pace(0.0))  # the three seconds: test_search_public
    fake_mode = {"failing": "error"}.get(mode, mode)
    return ArxivSearch("http://api.invalid/api/query", transport=_public_api(feed, fake_mode))


def ddg(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    def text(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        if mode == "failing":
            raise DDGSException("ConnectError: network unreachable")
        if mode == "empty":
            raise DDGSException("No results found.")
        if mode == "slow":
            time.sleep(0.5)
        return [{"title": f"T{i}", "href": f"https://d.example/{i}", "body": "b"} for i in range(8)]

    monkeypatch.setattr("ddgs.ddgs.DDGS.text", text)
    return DuckDuckGoSearch(attempts=2)


def local(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for i in range(8):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\nContract tides number {i}.", "utf-8")
    if mode == "failing":

        def broken(self: LocalIndex, query: str, max_results: int, **_: Any) -> list[SearchResult]:
            raise sqlite3.DatabaseError("database disk image is malformed")

        monkeypatch.setattr(LocalIndex, "search", broken)
    if mode == "slow":
        real = LocalIndex.search

        def sluggish(self: LocalIndex, query: str, max_results: int, **kw: Any) -> Any:
            time.sleep(0.5)
            return real(self, query, max_results, **kw)

        monkeypatch.setattr(LocalIndex, "search", sluggish)
    return LocalSearch([docs], cache_dir=cache_dir())


def hybrid(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    return HybridSearch(
        local(mode, tmp_path, monkeypatch), searxng(mode, tmp_path, monkeypatch), warn=print
    )


def fallback(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    primary = ddg("failing", tmp_path, monkeypatch)
    return FallbackSearch([primary, searxng(mode, tmp_path, monkeypatch)], lambda _: None)


def tavily(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    """At the boundary of Tavily's own client (tavily-python)."""

    async def search(self: Any, query: str, max_results: int = 5, **_: Any) -> dict[str, Any]:
        if mode == "failing":
            raise httpx.ConnectError("network unreachable")
        if mode == "slow":
            await asyncio.sleep(5)
        count = 0 if mode == "empty" else 8
        results = [
            {"title": f"T{i}", "url": f"https://t.example/{i}", "content": "c", "score": 0.5}
            for i in range(count)
        ]
        return {"query": query, "results": results[:max_results]}

    monkeypatch.setattr("tavily.AsyncTavilyClient.search", search)
    return TavilySearch("http://tavily.invalid", api_key="tvly-contract")


TIDEBOOK = str(SERVERS / "tidebook.py")


def mcp(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    """A real MCP server over stdio (tests/support/servers/tidebook.py), through the mcp SDK."""
    command = {
        "failing": [sys.executable, "-c", "raise SystemExit(3)"],  # dies before it answers
        "slow": [sys.executable, "-c", "import time; time.sleep(30)"],  # never answers
    }.get(mode, [sys.executable, TIDEBOOK])
    tool = "nothing" if mode == "empty" else "lookup"
    spec = McpServerSpec(name="tidebook", command=command, tools=[tool], timeout=20)
    return McpToolSearch(spec, tool)


def cached(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    cache = Cache(tmp_path / "contract-cache.sqlite")
    return CachedSearch(searxng(mode, tmp_path, monkeypatch), cache)


BACKENDS = {
    "searxng": searxng,
    "duckduckgo": ddg,
    "local": local,
    "hybrid": hybrid,
    "fallback": fallback,
    "tavily": tavily,
    "mcp": mcp,
    "cached": cached,
    "wikipedia": wikipedia,
    "arxiv": arxiv,
}
QUERY = {"empty": "xylophonic quasar", "results": "contract tides spring"}


# How long a cancelled search may take to stop. The mcp SDK's stdio transport, on leaving,
# closes the server's stdin and gives it 2 s to exit before terminating it.
CANCEL_SECONDS = {"mcp": 3.0}


# MCP starts a server process per search: seconds, so `make test` runs it, not `make check`.
SLOW = {"mcp"}


@pytest.fixture(
    params=[pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(BACKENDS)]
)
def factory(request: pytest.FixtureRequest) -> Factory:
    return BACKENDS[request.param]


async def test_results_name_the_backend_that_found_them(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each result says which backend found it — the backend itself or, for a wrapper,
    one of those it wraps — so a warning and a source can name where they came from."""
    backend = factory("results", tmp_path, monkeypatch)
    results = await backend.search(QUERY["results"], 3)
    inner = {backend.name, *_names_inside(backend)}
    assert results and {r.backend for r in results} <= inner, (backend.name, results)


def _names_inside(backend: Any) -> set[str]:
    names: set[str] = set()
    for attribute in ("backend", "backends", "sides"):
        found = getattr(backend, attribute, None)
        for part in found if isinstance(found, (list, tuple)) else [found] if found else []:
            names |= {part.name, *_names_inside(part)}
    return names


async def test_result_shape(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = await factory("results", tmp_path, monkeypatch).search(QUERY["results"], 3)
    assert 0 < len(results) <= 3
    for result in results:
        assert isinstance(result, SearchResult)
        assert result.title and result.url and result.backend
        assert result.origin in ("web", "local", "mcp")
        assert result.text
        if result.origin == "local":
            assert Path(result.url).is_absolute() and result.location
    assert len({(r.url, r.location) for r in results}) == len(results)


async def test_empty_results_are_an_empty_list(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await factory("empty", tmp_path, monkeypatch).search(QUERY["empty"], 3) == []


async def test_failure_raises_backend_error(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SearchBackendError):
        await factory("failing", tmp_path, monkeypatch).search(QUERY["results"], 3)


async def test_cancellation_is_prompt(
    factory: Factory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    backend = factory("slow", tmp_path, monkeypatch)
    allowed = CANCEL_SECONDS.get(request.node.callspec.params["factory"], 0.3)
    task = asyncio.create_task(backend.search(QUERY["results"], 3))
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.perf_counter() - started < allowed
