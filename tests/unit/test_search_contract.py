"""The contract every search backend honours (tests/support/contract.py): result shape,
empty results, failures, cancellation — for every backend registered, each through the
fixture its own module registers (``contract``), and for the wrappers around them.

Each backend is driven at its own boundary, never through the internet. Wikipedia and
arXiv answer as tests/support/public_apis.py's servers do, and MCP tools come from a real
MCP server (tests/support/servers/tidebook.py): those fixtures, which need what only the
tests have, are this module's own."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import SERVERS
from support.contract import (
    CANCEL_SECONDS,
    Factory,
    cancellation_is_prompt,
    empty_is_empty,
    failure_raises,
    names_who_found,
    result_shape,
)

from ponder.services.search.backends.arxiv import client as arxiv_module
from ponder.services.search.backends.arxiv.client import ArxivSearch
from ponder.services.search.backends.wikipedia.client import WikipediaSearch
from ponder.services.search.base import SearchBackend
from ponder.services.search.cached import CachedSearch
from ponder.services.search.fallback import FallbackSearch
from ponder.services.search.mcp_tools import McpToolSearch
from ponder.services.search.pacing import Pace
from ponder.services.search.registry import plugin, plugins
from ponder.services.storage.cache import Cache
from ponder.settings.mcp_servers import McpServerSpec


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))


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


def fallback(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    primary = plugin("duckduckgo").contract
    secondary = plugin("searxng").contract
    assert primary and secondary
    backends = [primary("failing", tmp_path, monkeypatch), secondary(mode, tmp_path, monkeypatch)]
    return FallbackSearch(backends, lambda _: None)


def cached(mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SearchBackend:
    cache = Cache(tmp_path / "contract-cache.sqlite")
    searxng = plugin("searxng").contract
    assert searxng
    return CachedSearch(searxng(mode, tmp_path, monkeypatch), cache)


# What only the tests have: the fake public APIs, a real MCP server; and the wrappers.
OWN: dict[str, Factory] = {
    "wikipedia": wikipedia,
    "arxiv": arxiv,
    "mcp": mcp,
    "fallback": fallback,
    "cached": cached,
}
BACKENDS: dict[str, Factory] = {
    **{p.name: p.contract for p in plugins() if p.contract is not None},
    **OWN,
}


# How long a cancelled search may take to stop. The mcp SDK's stdio transport, on leaving,
# closes the server's stdin and gives it 2 s to exit before terminating it.
CANCEL = {"mcp": 3.0}


# MCP starts a server process per search: seconds, so `make test` runs it, not `make check`.
SLOW = {"mcp"}


@pytest.fixture(
    params=[pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(BACKENDS)]
)
def factory(request: pytest.FixtureRequest) -> Factory:
    return BACKENDS[request.param]


def test_every_backend_has_a_contract_fixture() -> None:
    """A backend registers its fixture with itself, or (needing what only the tests have)
    this module has it: none escapes the contract."""
    assert {p.name for p in plugins()} <= set(BACKENDS)


async def test_results_name_the_backend_that_found_them(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await names_who_found(factory, tmp_path, monkeypatch)


async def test_result_shape(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await result_shape(factory, tmp_path, monkeypatch)


async def test_empty_results_are_an_empty_list(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await empty_is_empty(factory, tmp_path, monkeypatch)


async def test_failure_raises_backend_error(
    factory: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await failure_raises(factory, tmp_path, monkeypatch)


async def test_cancellation_is_prompt(
    factory: Factory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    allowed = CANCEL.get(request.node.callspec.params["factory"], CANCEL_SECONDS)
    await cancellation_is_prompt(factory, tmp_path, monkeypatch, allowed)
