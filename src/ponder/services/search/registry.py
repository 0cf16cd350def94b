"""What a search backend module registers, and the look-ups the factory and doctor make.

A backend is one module of :mod:`ponder.services.search.backends` that calls
``register(SearchPlugin(SearchBackendInfo(...), make=...))`` with:

- what every surface shows (:class:`ponder.settings.search_backends.SearchBackendInfo`):
  its name, a note and a summary, the settings and keys it reads, its place in the lists,
  whether it needs the network, whether hybrid includes it, what it falls back to;
- ``make``: its backend as configured, given the factory's :class:`Building`;
- ``check``: what ``ponder doctor`` says of it (a :class:`Verdict`);
- ``ready``: raise a SearchError before a run that cannot work at all (no key);
- ``contract``: the backend answering in each mode of the contract test
  (tests/unit/test_search_contract.py) at its own boundary, without the network;
- ``endpoints``: the addresses it asks, as configured for a question, so that one quick
  check before a run says whether it can be reached (:mod:`.reach`);
- ``present``: an offline backend's files are there (an archive set up but gone is no
  offline source).

The CLI, doctor, the MCP tool, the settings and docs/search-backends.md pick it up. The
module is imported whenever the names are listed (``ponder --help``), so it keeps its top
light: its client is imported inside ``make``, ``check`` and ``contract``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ponder.settings import search_backends
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.base import SearchBackend
    from ponder.services.storage.cache import Cache
    from ponder.settings.configuration import Configuration
    from ponder.settings.environment import Environment

Warn = Callable[[str], None]


class Verdict(NamedTuple):
    """What ``ponder doctor`` says of a backend: usable or not, and why."""

    ok: bool
    message: str


class Building(Protocol):
    """What ``make`` is given (:class:`ponder.services.search.factory.Building`)."""

    config: Configuration
    environment: Environment  # the cache folder and the keys, as an edge read them
    warn: Warn
    topic: str
    local: SearchBackend | None  # the user's documents, when ``docs`` names any

    @property
    def cache(self) -> Cache | None: ...
    def offline(self, hybrid_only: bool = False) -> list[SearchBackend]: ...
    def cached(self, backend: SearchBackend) -> SearchBackend: ...
    def chain(self, name: str) -> list[SearchBackend]: ...


class Patch(Protocol):
    """pytest's ``monkeypatch``, as a contract fixture uses it."""

    def setattr(self, target: Any, name: Any, value: Any = ..., raising: bool = ...) -> None: ...


Endpoints = Callable[["Configuration", str], list[str]]


class SearchPlugin(NamedTuple):
    info: SearchBackendInfo
    make: Callable[[Building], SearchBackend]
    check: Callable[[Configuration], Verdict] | None = None
    ready: Callable[[Configuration, Environment], None] | None = None
    contract: Callable[[str, Path, Patch], SearchBackend] | None = None
    endpoints: Endpoints | None = None  # None: it needs no network
    # Whether what it searches is there (its files exist): an offline source set up but
    # gone is no offline source. None: it is, once configured.
    present: Callable[[Configuration], bool] | None = None

    @property
    def name(self) -> str:
        return self.info.name

    def configured(self, config: Configuration) -> bool:
        """Whether a setting it cannot work without is set (searxng: ``searxng_url``; local:
        ``docs`` or ``library``)."""
        needs = [name.strip() for name in self.info.needs.split(",") if name.strip()]
        return not needs or any(getattr(config, name, None) for name in needs)


_PLUGINS: dict[str, SearchPlugin] = {}


def register(plugin: SearchPlugin) -> SearchPlugin:
    search_backends.register(plugin.info)
    _PLUGINS[plugin.name] = plugin
    return plugin


def unregister(name: str) -> None:
    search_backends.unregister(name)
    _PLUGINS.pop(name, None)


@contextmanager
def registered(plugin: SearchPlugin) -> Iterator[SearchPlugin]:
    """``plugin`` among the others while the block runs (a test's own backend)."""
    register(plugin)
    try:
        yield plugin
    finally:
        unregister(plugin.name)


def plugin(name: str) -> SearchPlugin:
    search_backends.get(name)  # the built-in backends registered, and this one known
    return _PLUGINS[name]


def merged_contract(*names: str) -> Callable[[str, Path, Patch], SearchBackend]:
    """The contract of a backend that searches ``names`` at once: each side faked as its own
    contract fixture fakes it, merged as ``hybrid`` and ``auto`` merge them."""

    def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
        from ponder.services.search.merge import HybridSearch

        sides = [plugin(name).contract for name in names]
        return HybridSearch(*(side(mode, folder, patch) for side in sides if side), warn=print)

    return contract


def plugins() -> list[SearchPlugin]:
    return [_PLUGINS[backend.name] for backend in search_backends.backends()]


def covered(names: list[str]) -> list[SearchPlugin]:
    """The backends ``names`` search (hybrid and auto: each they include): what needs no
    network first, then in order."""
    chosen = set(names)
    if any(plugin(name).info.everything for name in names):
        chosen |= {p.name for p in plugins() if p.info.hybrid}
    if any(plugin(name).info.with_offline for name in names):
        chosen |= {p.name for p in plugins() if p.info.offline}
    for name in names:
        chosen |= set(plugin(name).info.members)
    found = [p for p in plugins() if p.name in chosen]
    return sorted(found, key=lambda p: not p.info.offline)


def offline_plugins(config: Configuration) -> list[SearchPlugin]:
    """The backends that need no network, set up and there (your documents, ZIM archives)."""
    return [
        p
        for p in plugins()
        if p.info.offline and p.configured(config) and (p.present is None or p.present(config))
    ]


def verdicts(config: Configuration) -> list[Verdict]:
    """What doctor says of each backend the configured search uses."""
    return [
        p.check(config)
        for p in covered(config.searches)
        if p.check is not None and (p.configured(config) or p.name in config.searches)
    ]


def web_backends(config: Configuration) -> list[SearchPlugin]:
    """The backends the configured search asks over the network, fallbacks included (each
    as configured: SearXNG only with its address)."""
    found: dict[str, SearchPlugin] = {}
    for first in covered(config.searches):
        for candidate in [first, *(plugin(n) for n in first.info.fallbacks)]:
            wanted = candidate is first or not candidate.info.public or config.fallback
            if candidate.endpoints is not None and wanted and candidate.configured(config):
                found.setdefault(candidate.name, candidate)
    return list(found.values())


def ready(config: Configuration, environment: Environment) -> None:
    """Raise SearchError when a backend the search names cannot work at all (``environment``:
    the keys, as an edge read them)."""
    for name in config.searches:
        if (check := plugin(name).ready) is not None:
            check(config, environment)
