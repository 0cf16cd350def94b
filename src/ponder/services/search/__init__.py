"""Search backends behind one interface, and the factory that picks and wraps them.

Fallback order (each step is announced through ``warn``):

- ``duckduckgo``: DuckDuckGo → SearXNG → local documents (when ``docs`` is set).
- ``searxng``: SearXNG → local documents (when ``docs`` is set); DuckDuckGo, a public
  engine, only with ``fallback`` (private searches stay private unless you opt in).
- ``local``: local documents only; no network at all.
- ``hybrid``: local documents, the web (DuckDuckGo → SearXNG), Wikipedia, arXiv and the
  allowed tools of ``mcp_servers`` concurrently, merged by rank; a side failing leaves the
  others.
- ``tavily``: Tavily's API (key in TAVILY_API_KEY) → local documents (when ``docs`` is set);
  DuckDuckGo only with ``fallback``.
- ``wikipedia``, ``arxiv``: their keyless APIs → local documents (when ``docs`` is set).
- several, e.g. ``wikipedia,arxiv``: each as it would be alone (without the documents'
  fallback unless ``local`` is among them), concurrently, merged by rank like ``hybrid``.

With ``embed_model`` set, local search is hybrid within itself: BM25 and the embedding
model's nearest passages, fused by their rescaled scores (see ``local/index.py`` and
``local/vectors.py``).

Web answers are cached per backend + query (``cache``, ``cache_ttl_hours``); local search is
not, its index is already on disk. When everything fails the search warns and returns [].
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ponder.core.errors import SearchError
from ponder.services.search.arxiv import ArxivSearch
from ponder.services.search.arxiv_pdf import ArxivFullText
from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult
from ponder.services.search.cached import CachedSearch
from ponder.services.search.duckduckgo import DuckDuckGoSearch
from ponder.services.search.fallback import FallbackSearch
from ponder.services.search.hybrid import HybridSearch, merge_by_rank
from ponder.services.search.language import edition_url, wikipedia_language
from ponder.services.search.local.backend import LocalSearch
from ponder.services.search.local.embeddings import Embedder
from ponder.services.search.local.index import IndexStats, IndexStatus, LocalIndex
from ponder.services.search.local.indexes import FolderIndexes, embed, index, index_status
from ponder.services.search.mcp_tools import McpToolSearch
from ponder.services.search.mcp_tools import backends as mcp_backends
from ponder.services.search.searxng import SearxngSearch
from ponder.services.search.tavily import TavilySearch
from ponder.services.search.wikipedia import WikipediaSearch
from ponder.services.storage.cache import Cache
from ponder.settings.configuration import Configuration
from ponder.settings.environment import Environment

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
]

Warn = Callable[[str], None]


def make_search(
    config: Configuration, warn: Warn, topic: str = "", *, environment: Environment
) -> SearchBackend:
    """The configured search backend, with caching and fallback; see the module docstring.

    ``environment``: the cache folder and the keys, as an edge read them. ``topic`` (the
    question) chooses the Wikipedia edition when ``wikipedia_lang`` does not. Raises
    SearchError when ``local`` or ``hybrid`` search cannot work as configured.
    """
    local = _local(config, environment, warn)
    names = config.searches
    if "local" in names and local is None:
        raise SearchError(
            f"search={config.search!r} needs your documents — pass --docs PATH (or docs=[...] "
            "in Python, PONDER_DOCS in the environment)."
        )
    if names == ["local"] and local is not None:
        return FallbackSearch([local], warn, empty_when_exhausted=True)
    web = _Web(config, environment, warn, topic)
    if names == ["hybrid"]:
        sides: list[SearchBackend] = [
            FallbackSearch(web.chain("duckduckgo"), warn),
            *web.chain("wikipedia"),
            *web.chain("arxiv"),
            *mcp_backends(config.mcp_servers),
        ]
        if local is None:
            warn("search='hybrid' without docs: searching without your documents (--docs PATH).")
        else:
            sides.insert(0, local)
        return FallbackSearch([HybridSearch(*sides, warn=warn)], warn, empty_when_exhausted=True)
    if len(names) > 1:
        parts: list[SearchBackend] = []
        for name in names:
            parts.append(
                local if name == "local" and local else FallbackSearch(web.chain(name), warn)
            )
        order: list[SearchBackend] = [HybridSearch(*parts, warn=warn)]
    else:
        order = web.chain(names[0])
    if local is not None and "local" not in names:
        order.append(local)
    return FallbackSearch(order, warn, empty_when_exhausted=True)


class _Web:
    """Each web backend as configured, cached, in its fallback order."""

    def __init__(
        self, config: Configuration, environment: Environment, warn: Warn, topic: str
    ) -> None:
        self.config = config
        self.environment = environment
        self.warn = warn
        self.topic = topic
        folder = environment.cache_folder
        self.cache = Cache.from_config(config, folder, warn) if config.cache else None

    def chain(self, name: str) -> list[SearchBackend]:
        config = self.config
        ddg = _cached(DuckDuckGoSearch(warn=self.warn), self.cache)
        searxng = _cached(SearxngSearch(config.searxng_url), self.cache)
        if name == "duckduckgo":
            return [ddg, searxng]
        if name == "searxng":
            return [searxng, ddg] if config.fallback else [searxng]
        if name == "tavily":
            key = self.environment.secret("TAVILY_API_KEY")
            tavily = _cached(TavilySearch(config.tavily_url, api_key=key), self.cache)
            return [tavily, ddg] if config.fallback else [tavily]
        if name == "wikipedia":
            language = config.wikipedia_lang or wikipedia_language(self.topic)
            url = edition_url(config.wikipedia_url, language)
            return [_cached(WikipediaSearch(url), self.cache)]
        if name == "arxiv":
            arxiv = _cached(ArxivSearch(config.arxiv_url), self.cache)
            if config.fetch_full_page:
                arxiv = ArxivFullText.with_reader(
                    arxiv, config.allow_private_urls, self.cache, self.warn
                )
            return [arxiv]
        raise ValueError(f"no web search backend named {name!r}")


def _local(config: Configuration, environment: Environment, warn: Warn) -> LocalSearch | None:
    if not config.docs:
        return None
    existing = [p for p in config.docs if Path(p).expanduser().exists()]
    if not existing:
        raise SearchError(
            f"None of the document paths exist: {', '.join(config.docs)} — check --docs."
        )
    for missing in sorted(set(config.docs) - set(existing)):
        warn(f"Document path {missing} does not exist; ignoring it.")
    embedder = None
    if config.embed_model:
        embedder = Embedder(config.embed_model, config.ollama_hosts[0], config.request_timeout)
    return LocalSearch(
        existing,
        cache_dir=environment.cache_folder,
        warn=warn,
        embedder=embedder,
        anchors=config.docs_roots,
        hidden=config.docs_hidden_and_symlinks,
    )


def _cached(backend: SearchBackend, cache: Cache | None) -> SearchBackend:
    return CachedSearch(backend, cache) if cache is not None and cache.enabled else backend
