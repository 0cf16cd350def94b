"""Tavily, a search API made for agents, through its official client (tavily-python).

Never the default: it needs an account, and each query is sent to Tavily. The key comes
from ``TAVILY_API_KEY``, read at an edge and passed in. A missing or rejected key is a
SearchError (exit code 6), raised even in the middle of a run, because no later query can
succeed; a usage limit, a timeout or a server error is a backend failure, like any other
backend's.
"""

from __future__ import annotations

from typing import Any

from ponder.core.errors import SearchError
from ponder.services.search.base import SearchBackendError, SearchResult

SIGN_UP = "https://app.tavily.com"


def tavily_key(key: str | None) -> str:
    """The key the environment held (None: it held none), or a SearchError saying where to
    set one."""
    if not key:
        raise SearchError(
            f"search=tavily needs an API key — set TAVILY_API_KEY (get one at {SIGN_UP}), "
            "or choose another --search."
        )
    return key


class TavilySearch:
    name = "tavily"

    def __init__(self, base_url: str, *, api_key: str | None, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        self.api_key = tavily_key(api_key)
        self.timeout = timeout

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        from tavily import AsyncTavilyClient, errors

        if not query.strip():
            return []
        client = AsyncTavilyClient(api_key=self.api_key, api_base_url=self.base_url)
        try:
            data = await client.search(query, max_results=max_results, timeout=self.timeout)
        except (errors.InvalidAPIKeyError, errors.MissingAPIKeyError):
            raise SearchError(
                f"Tavily rejected the API key in TAVILY_API_KEY — check it at {SIGN_UP}, or "
                "choose another --search."
            ) from None
        except errors.ForbiddenError as exc:  # 403, or the plan's limits (432, 433)
            raise SearchError(
                f"Tavily refused the search ({exc or 'forbidden'}) — check the key and your "
                f"plan's credits at {SIGN_UP}, or choose another --search."
            ) from None
        except errors.UsageLimitExceededError as exc:
            raise SearchBackendError(f"Tavily usage limit reached ({exc})") from None
        except Exception as exc:  # timeouts, HTTP and connection errors of the client
            raise SearchBackendError(
                f"Tavily at {self.base_url} failed ({type(exc).__name__}: {exc})"
            ) from None
        return self._convert(data.get("results"), max_results)

    @staticmethod
    def _convert(results: Any, max_results: int) -> list[SearchResult]:
        found = []
        for item in results or []:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            found.append(
                SearchResult(
                    title=str(item.get("title") or item["url"]),
                    url=str(item["url"]),
                    snippet=str(item.get("content") or ""),
                    content=str(item.get("raw_content") or "") or None,
                    backend="tavily",
                    location=None,
                )
            )
        return found[:max_results]
