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
- ``auto`` (the default): the documents and DuckDuckGo (→ your SearXNG, when its address
  is set), concurrently.

A web backend the run's quick check could not reach (:mod:`.reach`) is left out of every
chain: offline, no query goes to it. When nothing is left to search, OfflineError.

With ``embed_model`` set, local search is hybrid within itself: BM25 and the embedding
model's nearest passages, fused by their rescaled scores (see ``local/index.py`` and
``local/vectors.py``).

Web answers are cached per backend + query (``cache``, ``cache_ttl_hours``); local search is
not, its index is already on disk. When everything fails the search warns and returns [].
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from ponder.core.errors import OfflineError, SearchError
from ponder.services.search.backends.local.backend import LocalSearch
from ponder.services.search.backends.local.embeddings import configured_embedder
from ponder.services.search.backends.local.library.catalog import CitedSearch, load_catalog
from ponder.services.search.base import SearchBackend
from ponder.services.search.cached import CachedSearch
from ponder.services.search.fallback import FallbackSearch
from ponder.services.search.merge import HybridSearch
from ponder.services.search.reach import Reach, search_reach
from ponder.services.search.registry import Warn, offline_plugins, plugin
from ponder.services.storage.cache import Cache
from ponder.settings.configuration import Configuration
from ponder.settings.environment import Environment

LOCAL = "local"  # the user's documents: the last fallback of every other search


def make_search(
    config: Configuration,
    warn: Warn,
    topic: str = "",
    *,
    environment: Environment,
    reach: Reach | None = None,
) -> SearchBackend:
    """The configured search backend, with caching and fallback; see the module docstring.

    ``environment``: the cache folder and the keys, as an edge read them. ``topic`` (the
    question) chooses the Wikipedia edition when ``wikipedia_lang`` does not. ``reach``:
    which web backends can be reached (else the run's check, remembered, says). Raises
    SearchError when ``local`` or ``hybrid`` search cannot work as configured, and
    OfflineError when nothing that can be reached is left to search.
    """
    local = _local(config, environment, warn)
    names = config.searches
    if LOCAL in names and local is None:
        raise SearchError(
            f"search={config.search!r} needs your documents — pass --docs PATH or --library "
            "FILE (or docs=[...] in Python, PONDER_DOCS in the environment)."
        )
    reach = reach if reach is not None else search_reach(config, topic)
    built = Building(config, environment, warn, topic, local, frozenset(reach.unreachable))
    whole = any(plugin(name).info.everything or plugin(name).info.members for name in names)
    if whole:
        order: list[SearchBackend] = [plugin(names[0]).make(built)]
    elif len(names) > 1:
        parts = [
            local if name == LOCAL and local else FallbackSearch(chain, warn)
            for name in names
            if (name == LOCAL and local) or (chain := built.chain(name))
        ]
        order = [HybridSearch(*parts, warn=warn)] if parts else []
    else:
        order = built.chain(names[0])
    if local is not None and LOCAL not in names and not whole:
        order.append(local)
    if not order:
        raise OfflineError(reach.why() or "no backend of the search is set up")
    return FallbackSearch(order, warn, empty_when_exhausted=True)


def preflight(config: Configuration, topic: str, warn: Warn) -> Reach:
    """The run's one quick check, before its first round: whether the web backends of the
    search can be reached. Those that cannot are left out of the run, and one line says
    so; when nothing is left to search — no web, no documents — OfflineError. With
    documents set up, a parsing worker starts now, while the model plans the searches,
    and the run's first search brings their index up to date."""
    if offline_plugins(config):
        from ponder.services.text.sandbox import prewarm

        prewarm()
    if config.docs or config.library:
        LocalSearch.refresh_at_next_search()
    if config.library:  # said once a run, here: each round opens the libraries again
        for line in load_catalog(
            config.library, config.docs_roots, config.docs_hidden_and_symlinks
        ).warnings():
            warn(line)
    reach = search_reach(config, topic, fresh=True)
    if not reach.unreachable:
        return reach
    offline = offline_sources(config)
    why = reach.why() + _to_check(reach)
    if reach.offline and not offline:
        raise OfflineError(why)
    if reach.offline:
        warn(
            f"The web cannot be reached ({why}): this run searches {' and '.join(offline)} "
            "only; the web was skipped."
        )
    else:
        left = ", ".join([*reach.reachable, *offline])
        warn(f"Cannot reach {', '.join(reach.unreachable)} ({why}); searching {left}.")
    return reach


def _to_check(reach: Reach) -> str:
    """What to check for a backend that was set up to be reachable (SearXNG's address)."""
    settings = [plugin(n).info.needs for n in reach.unreachable if plugin(n).info.needs]
    return f" — check {', '.join(settings)}" if settings else ""


def offline_sources(config: Configuration) -> list[str]:
    """What can be searched with no network, as set up: each offline backend (your
    documents and your reference library, when their files exist; your ZIM archives);
    the tools of the MCP servers hybrid search asks (the operator's own, often local)."""
    found = []
    for offline in offline_plugins(config):
        if offline.name != LOCAL:
            found.append(offline.info.note or offline.name)
            continue
        if any(Path(p).expanduser().exists() for p in config.docs):
            found.append("your documents")
        if any(Path(p).expanduser().is_file() for p in config.library):
            found.append("your reference library")
    if config.mcp_servers and "hybrid" in config.searches:
        found.append("the MCP tools")
    return found


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
        unreachable: frozenset[str] = frozenset(),
    ) -> None:
        self.config = config
        self.environment = environment
        self.warn = warn
        self.topic = topic
        self.local = local
        self.unreachable = unreachable  # web backends the run's check could not reach

    @cached_property
    def cache(self) -> Cache | None:
        """The shared cache, opened when a web backend is first made."""
        if not self.config.cache:
            return None
        return Cache.from_config(self.config, self.environment.cache_folder, self.warn)

    def cached(self, backend: SearchBackend) -> SearchBackend:
        cache = self.cache
        return CachedSearch(backend, cache) if cache is not None and cache.enabled else backend

    def offline(self, hybrid_only: bool = False) -> list[SearchBackend]:
        """Each backend that needs no network and is set up (your documents first), made;
        with ``hybrid_only``, those hybrid includes."""
        chosen = [p for p in offline_plugins(self.config) if p.info.hybrid or not hybrid_only]
        made = []
        for offline in chosen:
            if offline.name == LOCAL and self.local is None:
                continue
            try:
                made.append(offline.make(self))
            except SearchError as exc:  # set up but unusable (no libzim): the others go on
                self.warn(f"{exc} Searching without it.")
        return made

    def chain(self, name: str) -> list[SearchBackend]:
        """``name``'s backend, then those it falls back to (a public one: with ``fallback``;
        one that needs a setting: when it is set), each only if it can be reached."""
        first = plugin(name)
        then = [plugin(other) for other in first.info.fallbacks]
        allowed = [
            other
            for other in then
            if (not other.info.public or self.config.fallback) and other.configured(self.config)
        ]
        return [p.make(self) for p in [first, *allowed] if p.name not in self.unreachable]


def _local(config: Configuration, environment: Environment, warn: Warn) -> SearchBackend | None:
    """Your documents and your reference library's attachments, searched as one; hits on an
    attachment are cited by its entry (:mod:`.local.library`)."""
    if not config.docs and not config.library:
        return None
    existing = [p for p in config.docs if Path(p).expanduser().exists()]
    if config.docs and not existing and not config.library:
        raise SearchError(
            f"None of the document paths exist: {', '.join(config.docs)} — check --docs."
        )
    for missing in sorted(set(config.docs) - set(existing)):
        warn(f"Document path {missing} does not exist; ignoring it.")
    hidden = config.docs_hidden_and_symlinks
    catalog = load_catalog(config.library, config.docs_roots, hidden) if config.library else None
    local = LocalSearch(
        [*existing, *(catalog.files if catalog else [])],
        cache_dir=environment.index_folder,
        warn=warn,
        embedder=configured_embedder(config, warn),
        anchors=[*config.docs_roots, *(catalog.folders if catalog else [])],
        hidden=hidden,
        role=environment.index_role,
    )
    return CitedSearch(local, catalog) if catalog else local
