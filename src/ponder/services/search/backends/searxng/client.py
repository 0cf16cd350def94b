"""A self-hosted SearXNG instance, through its JSON API (``/search?format=json``)."""

from __future__ import annotations

from typing import Any

import httpx

from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.services.web.tls import shared_ssl_context


class SearxngSearch:
    """Web search through SearXNG. Returns [] for no results; SearchBackendError on failure.

    SearXNG is reached at its configured URL, usually on the local network, so the page
    reader's private-address guard does not apply here.
    """

    name = "searxng"

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 15.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._transport = transport

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        if not query.strip():
            return []
        data = await self._get(query)
        results = self._convert(data.get("results"), max_results)
        unresponsive = data.get("unresponsive_engines") or []
        if not results and unresponsive:
            # Every engine that could have answered failed: that is not "no results".
            names = ", ".join(str(e[0] if isinstance(e, list) else e) for e in unresponsive)
            raise SearchBackendError(f"SearXNG engines did not respond: {names}")
        return results

    async def _get(self, query: str) -> dict[str, Any]:
        url = f"{self.base_url}/search"
        try:
            async with httpx.AsyncClient(
                timeout=self.timeout, transport=self._transport, verify=shared_ssl_context()
            ) as client:
                response = await client.get(url, params={"q": query, "format": "json"})
        except httpx.HTTPError as exc:
            raise SearchBackendError(
                f"SearXNG at {self.base_url} is unreachable ({type(exc).__name__}) — "
                "check searxng_url (--searxng-url)."
            ) from None
        if response.status_code == 403:
            raise SearchBackendError(
                f"SearXNG at {self.base_url} refused the JSON API (HTTP 403) — add 'json' to "
                "search.formats in its settings.yml."
            )
        if response.status_code != 200:
            raise SearchBackendError(
                f"SearXNG at {self.base_url} answered HTTP {response.status_code}"
            )
        try:
            data = response.json()
        except ValueError:
            raise SearchBackendError(f"SearXNG at {self.base_url} did not return JSON") from None
        if not isinstance(data, dict):
            raise SearchBackendError(f"SearXNG at {self.base_url} returned unexpected JSON")
        return data

    def _convert(self, items: Any, max_results: int) -> list[SearchResult]:
        results: list[SearchResult] = []
        seen: set[str] = set()
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            url = str(item.get("url") or "")
            if not url or url in seen:
                continue
            seen.add(url)
            results.append(
                SearchResult(
                    title=str(item.get("title") or url),
                    url=url,
                    snippet=str(item.get("content") or ""),
                    content=None,
                    backend=self.name,
                    location=None,
                )
            )
            if len(results) >= max_results:
                break
        return results
