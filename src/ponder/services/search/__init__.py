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
    from ponder.services.search.arxiv import ArxivSearch
    from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult
    from ponder.services.search.duckduckgo import DuckDuckGoSearch
    from ponder.services.search.factory import make_search, preflight
    from ponder.services.search.fallback import FallbackSearch
    from ponder.services.search.hybrid import HybridSearch, merge_by_rank
    from ponder.services.search.local.backend import LocalSearch
    from ponder.services.search.local.embeddings import Embedder
    from ponder.services.search.local.index import IndexStats, IndexStatus, LocalIndex
    from ponder.services.search.local.indexes import FolderIndexes, embed, index, index_status
    from ponder.services.search.mcp_tools import McpToolSearch
    from ponder.services.search.reach import Reach, search_reach
    from ponder.services.search.searxng import SearxngSearch
    from ponder.services.search.tavily import TavilySearch
    from ponder.services.search.wikipedia import WikipediaSearch

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
    "ArxivSearch": "arxiv",
    "DuckDuckGoSearch": "duckduckgo",
    "Embedder": "local.embeddings",
    "FallbackSearch": "fallback",
    "FolderIndexes": "local.indexes",
    "HybridSearch": "hybrid",
    "IndexStats": "local.index",
    "IndexStatus": "local.index",
    "LocalIndex": "local.index",
    "LocalSearch": "local.backend",
    "McpToolSearch": "mcp_tools",
    "Reach": "reach",
    "SearchBackend": "base",
    "SearchBackendError": "base",
    "SearchResult": "base",
    "SearxngSearch": "searxng",
    "TavilySearch": "tavily",
    "WikipediaSearch": "wikipedia",
    "embed": "local.indexes",
    "index": "local.indexes",
    "index_status": "local.indexes",
    "make_search": "factory",
    "merge_by_rank": "hybrid",
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
