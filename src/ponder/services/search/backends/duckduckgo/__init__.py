"""search=duckduckgo, the default: DuckDuckGo and friends through ``ddgs``
(:mod:`ponder.services.search.backends.duckduckgo.client`), then SearXNG when it fails."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ponder.services.search.registry import Building, Patch, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration

URL = "https://html.duckduckgo.com/html/"  # what `ponder doctor` asks
# Engines ddgs asks: the web is reachable when any of them is.
ENGINES = (URL, "https://www.bing.com/", "https://search.brave.com/")


def make(built: Building) -> SearchBackend:
    from ponder.services.search.backends.duckduckgo.client import DuckDuckGoSearch

    return built.cached(DuckDuckGoSearch(warn=built.warn))


def check(config: Configuration) -> Verdict:
    from ponder.services.search.public_api import reachable

    return reachable("DuckDuckGo", URL)


def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
    """At the boundary of ddgs, which raises the same exception for "no results" (with
    that exact message) and for a failure."""
    import time

    from ddgs.exceptions import DDGSException

    from ponder.services.search.backends.duckduckgo.client import DuckDuckGoSearch

    def text(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        if mode == "failing":
            raise DDGSException("ConnectError: network unreachable")
        if mode == "empty":
            raise DDGSException("No results found.")
        if mode == "slow":
            time.sleep(0.5)
        return [{"title": f"T{i}", "href": f"https://d.example/{i}", "body": "b"} for i in range(8)]

    patch.setattr("ddgs.ddgs.DDGS.text", text)
    return DuckDuckGoSearch(attempts=2, backoff=0.01)


def endpoints(config: Configuration, topic: str) -> list[str]:
    """ddgs asks several engines: any of them answering is the web answering."""
    return list(ENGINES)


register(
    SearchPlugin(
        SearchBackendInfo(
            name="duckduckgo",
            summary="DuckDuckGo and the other engines of the `ddgs` package",
            order=10,
            fallbacks=("searxng",),
            hybrid=True,
        ),
        make=make,
        check=check,
        contract=contract,
        endpoints=endpoints,
    )
)
