"""Search: backends behind one interface (:mod:`.base`), each registered by its module in
:mod:`.backends` (:mod:`.registry`), and the factory that picks and wraps them
(:mod:`.factory`, where the fallback order is told).

Names are imported on first use (PEP 562): the backends' modules are imported whenever
the names are listed (``ponder --help``), and this package is imported with them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ponder.services.search.backends.arxiv.client import ArxivSearch
    from ponder.services.search.backends.duckduckgo.client import DuckDuckGoSearch
    from ponder.services.search.backends.local.backend import LocalSearch
    from ponder.services.search.backends.local.embeddings import Embedder
    from ponder.services.search.backends.local.index import IndexStats, IndexStatus, LocalIndex
    from ponder.services.search.backends.local.indexes import (
        FolderIndexes,
        embed,
        index,
        index_status,
    )
    from ponder.services.search.backends.searxng.client import SearxngSearch
    from ponder.services.search.backends.tavily.client import TavilySearch
    from ponder.services.search.backends.wikipedia.client import WikipediaSearch
    from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult
    from ponder.services.search.factory import make_search, preflight
    from ponder.services.search.fallback import FallbackSearch
    from ponder.services.search.mcp_tools import McpToolSearch
    from ponder.services.search.merge import HybridSearch, merge_by_rank
    from ponder.services.search.reach import Reach, search_reach

__all__ = [
    "ArxivSearch",
    "DuckDuckGoSearch",
    "Embedder",
    "FallbackSearch",
    "FolderIndexes",
    "HybridSearch",
    "IndexStats",
    "IndexStatus",
    "LocalIndex",
    "LocalSearch",
    "McpToolSearch",
    "Reach",
    "SearchBackend",
    "SearchBackendError",
    "SearchResult",
    "SearxngSearch",
    "TavilySearch",
    "WikipediaSearch",
    "embed",
    "index",
    "index_status",
    "make_search",
    "merge_by_rank",
    "preflight",
    "search_reach",
]

_HOME = {
    "ArxivSearch": "backends.arxiv.client",
    "DuckDuckGoSearch": "backends.duckduckgo.client",
    "Embedder": "backends.local.embeddings",
    "FallbackSearch": "fallback",
    "FolderIndexes": "backends.local.indexes",
    "HybridSearch": "merge",
    "IndexStats": "backends.local.index",
    "IndexStatus": "backends.local.index",
    "LocalIndex": "backends.local.index",
    "LocalSearch": "backends.local.backend",
    "McpToolSearch": "mcp_tools",
    "Reach": "reach",
    "SearchBackend": "base",
    "SearchBackendError": "base",
    "SearchResult": "base",
    "SearxngSearch": "backends.searxng.client",
    "TavilySearch": "backends.tavily.client",
    "WikipediaSearch": "backends.wikipedia.client",
    "embed": "backends.local.indexes",
    "index": "backends.local.indexes",
    "index_status": "backends.local.indexes",
    "make_search": "factory",
    "merge_by_rank": "merge",
    "preflight": "factory",
    "search_reach": "reach",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
