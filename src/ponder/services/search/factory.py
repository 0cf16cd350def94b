"""The configured search: each backend as its module makes it, cached, in fallback order.

Fallback order (each step is announced through ``warn``):

- a backend alone: it, then the backends it names as its fallbacks — a public engine only
  with ``fallback`` (private searches stay private unless you opt in) — then the local
  documents when ``docs`` is set. So ``duckduckgo`` falls back to SearXNG; ``searxng`` and
  ``tavily`` to DuckDuckGo only with ``fallback``; ``wikipedia`` and ``arxiv`` to nothing
  but the documents (docs/search-backends.md lists each).
- ``local``: local documents only; no network at all.
- ``hybrid``: local documents, every backend that says hybrid includes it (DuckDuckGo →
  SearXNG, Wikipedia, arXiv) and the allowed tools of ``mcp_servers`` concurrently,
  merged by rank; a side failing leaves the others.
- several, e.g. ``wikipedia,arxiv``: each as it would be alone (without the documents'
  fallback unless ``local`` is among them), concurrently, merged by rank like ``hybrid``.

With ``embed_model`` set, local search is hybrid within itself: BM25 and the embedding
model's nearest passages, fused by their rescaled scores (see ``local/index.py`` and
``local/vectors.py``).

Web answers are cached per backend + query (``cache``, ``cache_ttl_hours``); local search is
not, its index is already on disk. When everything fails the search warns and returns [].
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from ponder.core.errors import SearchError
from ponder.services.search.base import SearchBackend
from ponder.services.search.cached import CachedSearch
from ponder.services.search.fallback import FallbackSearch
from ponder.services.search.hybrid import HybridSearch
from ponder.services.search.local.backend import LocalSearch
from ponder.services.search.local.embeddings import configured_embedder
from ponder.services.search.registry import Warn, plugin
from ponder.services.storage.cache import Cache
from ponder.settings.configuration import Configuration
from ponder.settings.environment import Environment

LOCAL = "local"  # the user's documents: the last fallback of every other search


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
    if LOCAL in names and local is None:
        raise SearchError(
            f"search={config.search!r} needs your documents — pass --docs PATH (or docs=[...] "
            "in Python, PONDER_DOCS in the environment)."
        )
    built = Building(config, environment, warn, topic, local)
    if len(names) > 1:
        parts = [
            local if name == LOCAL and local else FallbackSearch(built.chain(name), warn)
            for name in names
        ]
        order: list[SearchBackend] = [HybridSearch(*parts, warn=warn)]
    else:
        order = built.chain(names[0])
    whole = any(plugin(name).info.everything for name in names)
    if local is not None and LOCAL not in names and not whole:
        order.append(local)
    return FallbackSearch(order, warn, empty_when_exhausted=True)


class Building:
    """What a backend's ``make`` is given: the configuration, the question, the cache, the
    user's documents, and every backend's fallback chain."""

    def __init__(
        self,
        config: Configuration,
        environment: Environment,
        warn: Warn,
        topic: str,
        local: SearchBackend | None,
    ) -> None:
        self.config = config
        self.environment = environment
        self.warn = warn
        self.topic = topic
        self.local = local

    @cached_property
    def cache(self) -> Cache | None:
        """The shared cache, opened when a web backend is first made."""
        if not self.config.cache:
            return None
        return Cache.from_config(self.config, self.environment.cache_folder, self.warn)

    def cached(self, backend: SearchBackend) -> SearchBackend:
        cache = self.cache
        return CachedSearch(backend, cache) if cache is not None and cache.enabled else backend

    def chain(self, name: str) -> list[SearchBackend]:
        """``name``'s backend, then those it falls back to (a public one: with ``fallback``)."""
        first = plugin(name)
        then = [plugin(other) for other in first.info.fallbacks]
        allowed = [other for other in then if not other.info.public or self.config.fallback]
        return [first.make(self), *(other.make(self) for other in allowed)]


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
    return LocalSearch(
        existing,
        cache_dir=environment.cache_folder,
        warn=warn,
        embedder=configured_embedder(config),
        anchors=config.docs_roots,
        hidden=config.docs_hidden_and_symlinks,
    )
