"""search=searxng: a self-hosted SearXNG instance over its JSON API
(:mod:`.client`); DuckDuckGo, a public engine, only with fallback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.services.search.registry import Building, Patch, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.backends.searxng.settings import SearxngSettings
    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration
    from ponder.settings.environment import Environment


NO_URL = (
    "search=searxng needs your SearXNG's address — pass --searxng-url URL (or set "
    "PONDER_SEARXNG_URL)."
)


def _own(config: Configuration) -> SearxngSettings:
    """This backend's settings (its folder's settings.py), as the configuration holds them."""
    from ponder.services.search.backends.searxng.settings import SearxngSettings

    return SearxngSettings.of(config)


def make(built: Building) -> SearchBackend:
    from ponder.services.search.backends.searxng.client import SearxngSearch

    url = _own(built.config).searxng_url
    assert url, "ready() refuses search=searxng without its address"
    return built.cached(SearxngSearch(url))


def ready(config: Configuration, environment: Environment) -> None:
    """No address: say so before the run starts (no default is ever asked)."""
    from ponder.core.errors import SearchError

    if not _own(config).searxng_url:
        raise SearchError(NO_URL)


def check(config: Configuration) -> Verdict:
    """Asked through the backend itself, so its errors are the ones a run would meet."""
    import asyncio

    from ponder.services.search.backends.searxng.client import SearxngSearch
    from ponder.services.search.base import SearchBackendError

    url = _own(config).searxng_url
    if not url:
        return Verdict(False, NO_URL)
    fix = f"start SearXNG at {url} (JSON format enabled) or choose another --search"
    try:
        asyncio.run(SearxngSearch(url).search("ponder", 1))
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
    url = _own(config).searxng_url
    return [url] if url else []


register(
    SearchPlugin(
        SearchBackendInfo(
            name="searxng",
            fields=f"{__name__}.settings:SearxngSettings",
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
