"""search=tavily: Tavily's API through its own client (:mod:`.client`),
with the key in TAVILY_API_KEY; never the default, DuckDuckGo only with fallback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ponder.services.search.registry import Building, Patch, SearchPlugin, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.backends.tavily.settings import TavilySettings
    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration
    from ponder.settings.environment import Environment


def _own(config: Configuration) -> TavilySettings:
    """This backend's settings (its folder's settings.py), as the configuration holds them."""
    from ponder.services.search.backends.tavily.settings import TavilySettings

    return TavilySettings.of(config)


def make(built: Building) -> SearchBackend:
    from ponder.services.search.backends.tavily.client import TavilySearch

    key = built.environment.secret("TAVILY_API_KEY")
    return built.cached(TavilySearch(_own(built.config).tavily_url, api_key=key))


def ready(config: Configuration, environment: Environment) -> None:
    """No key: say so before the run starts."""
    from ponder.services.search.backends.tavily.client import tavily_key

    tavily_key(environment.secret("TAVILY_API_KEY"))


def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
    """At the boundary of Tavily's own client (tavily-python)."""
    import asyncio

    import httpx

    from ponder.services.search.backends.tavily.client import TavilySearch

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

    patch.setattr("tavily.AsyncTavilyClient.search", search)
    return TavilySearch("http://tavily.invalid", api_key="tvly-contract")


def endpoints(config: Configuration, topic: str) -> list[str]:
    return [_own(config).tavily_url]


register(
    SearchPlugin(
        SearchBackendInfo(
            name="tavily",
            fields=f"{__name__}.settings:TavilySettings",
            note="needs TAVILY_API_KEY",
            summary="Tavily's search API, made for agents (an account; each query goes to Tavily)",
            settings=("tavily_url", "fallback"),
            keys=("TAVILY_API_KEY",),
            order=50,
            fallbacks=("duckduckgo",),
        ),
        make=make,
        ready=ready,
        contract=contract,
        endpoints=endpoints,
    )
)
