"""DuckDuckGo (and friends) through the ``ddgs`` metasearch package.

ddgs is synchronous, so each call runs in a worker thread. It raises ``DDGSException``
both when the engines found nothing and when they failed; ddgs 9 raises it with the exact
message "No results found." only when no engine reported an error, so that message alone
means "no results". Everything else is a failure, retried with exponential backoff within
a bounded total time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ponder.services.search.base import SearchBackendError, SearchResult

Warn = Callable[[str], None]
_NO_RESULTS = "No results found."
DEFAULT_BACKOFF = 1.0  # seconds before the first retry; doubled on each further one


def _ignore(_: str) -> None:
    return None


class DuckDuckGoSearch:
    """Web search with ddgs. Returns [] for no results; SearchBackendError when it keeps failing."""

    name = "duckduckgo"

    def __init__(
        self,
        *,
        timeout: float = 10.0,
        attempts: int = 3,
        backoff: float | None = None,
        total_timeout: float = 30.0,
        region: str = "wt-wt",
        warn: Warn | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = DEFAULT_BACKOFF if backoff is None else backoff
        self.total_timeout = total_timeout
        self.region = region
        self._warn = warn or _ignore
        self._sleep = sleep

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        if not query.strip():
            return []
        deadline = time.monotonic() + self.total_timeout
        error = "no attempt made"
        for attempt in range(1, self.attempts + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                async with asyncio.timeout(min(remaining, self.timeout)):
                    raw = await asyncio.to_thread(self._text, query, max_results)
                return self._convert(raw, max_results)
            except TimeoutError:
                error = "timed out"
            except _NoResults:
                return []
            except _Failed as exc:
                error = str(exc)
            delay = self.backoff * 2 ** (attempt - 1)
            if attempt == self.attempts or time.monotonic() + delay >= deadline:
                break
            self._warn(f"DuckDuckGo search failed ({error}); retrying in {delay:g}s.")
            await self._sleep(delay)
        raise SearchBackendError(f"DuckDuckGo search failed: {error}")

    def _text(self, query: str, max_results: int) -> list[dict[str, Any]]:
        # Imported here: ddgs is slow to import and only needed when searching the web.
        from ddgs.ddgs import DDGS
        from ddgs.exceptions import DDGSException

        try:
            return DDGS(timeout=int(max(1, self.timeout))).text(
                query, region=self.region, max_results=max_results
            )
        except DDGSException as exc:
            if str(exc).strip() == _NO_RESULTS:
                raise _NoResults from None
            raise _Failed(f"{type(exc).__name__}: {exc}") from None
        except Exception as exc:  # the library's boundary: anything else is a failure too
            raise _Failed(f"{type(exc).__name__}: {exc}") from None

    def _convert(self, raw: list[dict[str, Any]], max_results: int) -> list[SearchResult]:
        results: list[SearchResult] = []
        seen: set[str] = set()
        for item in raw or []:
            url = str(item.get("href") or item.get("url") or "")
            if not url or url in seen:
                continue
            seen.add(url)
            results.append(
                SearchResult(
                    title=str(item.get("title") or url),
                    url=url,
                    snippet=str(item.get("body") or item.get("snippet") or ""),
                    content=None,
                    backend=self.name,
                    location=None,
                )
            )
        return results[:max_results]


class _NoResults(Exception):
    pass


class _Failed(Exception):
    pass
