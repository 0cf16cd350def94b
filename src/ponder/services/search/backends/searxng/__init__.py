"""search=searxng: a self-hosted SearXNG instance over its JSON API
(:mod:`.client`); DuckDuckGo, a public engine, only with fallback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.services.search.registry import Building, Patch, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration
    from ponder.settings.environment import Environment


NO_URL = (
    "search=searxng needs your SearXNG's address — pass --searxng-url URL (or set "
    "PONDER_SEARXNG_URL)."
)


def make(built: Building) -> SearchBackend:
    from ponder.services.search.backends.searxng.client import SearxngSearch

    assert built.config.searxng_url, "ready() refuses search=searxng without its address"
    return built.cached(SearxngSearch(built.config.searxng_url))


def ready(config: Configuration, environment: Environment) -> None:
    """No address: say so before the run starts (no default is ever asked)."""
    from ponder.core.errors import SearchError

    if not config.searxng_url:
        raise SearchError(NO_URL)


def check(config: Configuration) -> Verdict:
    """Asked through the backend itself, so its errors are the ones a run would meet."""
    import asyncio

    from ponder.services.search.backends.searxng.client import SearxngSearch
    from ponder.services.search.base import SearchBackendError

    if not config.searxng_url:
        return Verdict(False, NO_URL)
    fix = f"start SearXNG at {config.searxng_url} (JSON format enabled) or choose another --search"
    try:
        asyncio.run(SearxngSearch(config.searxng_url).search("ponder", 1))
    except SearchBackendError as exc:
        return Verdict(False, f"{exc} — {fix}.")
    return Verdict(True, "SearXNG is reachable")


def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
    """At the HTTP boundary: a transport answering as SearXNG does."""
    import asyncio
    import json

    import httpx

    from ponder.services.search.backends.searxng.client import SearxngSearch

    async def answer(request: httpx.Request) -> httpx.Response:
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

    return SearxngSearch("http://searx.invalid", transport=httpx.MockTransport(answer))


def endpoints(config: Configuration, topic: str) -> list[str]:
    return [config.searxng_url] if config.searxng_url else []


register(
    SearchPlugin(
        SearchBackendInfo(
            name="searxng",
            summary="your own SearXNG instance (JSON format enabled), over HTTP",
            settings=("searxng_url", "fallback"),
            order=20,
            public=False,
            fallbacks=("duckduckgo",),
            needs="searxng_url",
        ),
        make=make,
        ready=ready,
        check=check,
        contract=contract,
        endpoints=endpoints,
    )
)
