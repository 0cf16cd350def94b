"""The search backends a user chooses among, as each backend registered itself.

A search backend is one module of :mod:`ponder.services.search.backends`, which registers
itself (:class:`ponder.services.search.registry.SearchPlugin`): its name, what is said of
it, the settings it reads, and how it is built, checked and faked. This module holds the
part the settings and every surface need — the names in their order and what to say of
each, no code that searches — so ``search`` is validated, and ``ponder --help`` lists the
names, without the settings importing services (the layers' rule) or anything heavy.

Who fills it: the package root (:mod:`ponder`), which every import passes through, names
the package the backends live in (:func:`discover`); that package is imported at the first
look-up, so nothing sees the names before the built-in backends have registered.

Only the standard library is imported here (pydantic only inside :class:`Known`'s hooks).
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any, NamedTuple


class SearchBackendInfo(NamedTuple):
    """What every surface knows of a search backend."""

    name: str
    note: str = ""  # after the name where the names are listed: "local (your documents)"
    summary: str = ""  # what it searches, for docs/search-backends.md
    settings: tuple[str, ...] = ()  # the Configuration fields it reads
    keys: tuple[str, ...] = ()  # the environment variables that hold its secrets
    order: int = 1000  # its place in every list, and among hybrid's sides
    offline: bool = False  # needs no network (checked first by `ponder doctor`)
    public: bool = True  # a public engine: a fallback of another only with fallback=True
    fallbacks: tuple[str, ...] = ()  # the backends tried, in order, when it fails
    hybrid: bool = False  # hybrid searches it too
    everything: bool = False  # searches every hybrid backend itself: never combined
    members: tuple[str, ...] = ()  # the backends it searches itself (auto): never combined
    with_offline: bool = False  # searches every offline backend set up, too (auto)
    needs: str = ""  # the setting it cannot work without (searxng: searxng_url); "a,b": either
    # "module:Class": the pydantic model of its own Configuration fields, kept in its folder
    # (a :class:`ponder.settings.backend_settings.BackendSettings`); imported only when the
    # Configuration is built, so that listing the names imports no pydantic.
    fields: str = ""


_REGISTERED: dict[str, SearchBackendInfo] = {}
_PACKAGES: list[str] = []  # where backends live: imported before each look-up


def discover(package: str) -> None:
    """Import ``package`` (whose modules register backends) before the first look-up."""
    if package not in _PACKAGES:
        _PACKAGES.append(package)


def register(backend: SearchBackendInfo) -> None:
    if backend.name in _REGISTERED:
        raise ValueError(f"a search backend named {backend.name!r} is registered already")
    _REGISTERED[backend.name] = backend


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


def backends() -> list[SearchBackendInfo]:
    """Every backend, in order (by ``order``, then as registered)."""
    _load()
    return sorted(_REGISTERED.values(), key=lambda backend: backend.order)


def names() -> tuple[str, ...]:
    return tuple(backend.name for backend in backends())


def get(name: str) -> SearchBackendInfo:
    _load()
    return _REGISTERED[name]


def setting_groups() -> tuple[type, ...]:
    """Each backend's own settings model (``fields``), in the backends' order: the groups
    :class:`ponder.settings.configuration.Configuration` is built from, beside its own."""
    groups = []
    for backend in backends():
        if backend.fields:
            module, _, name = backend.fields.partition(":")
            groups.append(getattr(importlib.import_module(module), name))
    return tuple(groups)


def _load() -> None:
    """Each package imported (at once when it is already): a thread that looks up while
    another imports it waits for the import to finish, under the import system's lock."""
    for package in _PACKAGES:
        importlib.import_module(package)


def described() -> str:
    """The names as the ``search`` setting describes them: "a, b (note) or c"."""
    shown = [f"{b.name} ({b.note})" if b.note else b.name for b in backends()]
    return " or ".join([", ".join(shown[:-1]), shown[-1]]) if len(shown) > 1 else "".join(shown)


def parse(value: str | list[object] | tuple[object, ...]) -> list[str]:
    """The backends a ``search`` value names ("a,b" or a list), lower-case, each once."""
    parts = value.split(",") if isinstance(value, str) else value
    return list(dict.fromkeys(str(p).strip().lower() for p in parts if str(p).strip()))


def choice(value: str | list[object] | tuple[object, ...]) -> str:
    """A valid ``search`` value as ``"a,b"``; ValueError (for validation) names what is not."""
    chosen = parse(value)
    known = names()
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise ValueError(
            f"unknown search backend {', '.join(unknown) or repr(value)} "
            f"(choose from {', '.join(known)}, or several comma-separated)"
        )
    whole = [name for name in chosen if get(name).everything or get(name).members]
    if whole and len(chosen) > 1:
        raise ValueError(f"{whole[0]} already searches several backends; combine the others")
    return ",".join(chosen)


class Known:
    """``Annotated[str, Known()]``: a registered backend's name, checked and offered (as
    the JSON schema's enum) against the backends registered when it is validated; a wrong
    name is refused as a ``Literal`` of them would refuse it."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(_known, handler(source))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        shown = handler(schema)
        shown["enum"] = list(names())
        return shown


SearchName = Annotated[str, Known()]
"""One search backend's name (a field or a tool's parameter)."""


def _known(value: Any) -> Any:
    known = names()
    if value in known:
        return value
    from pydantic_core import PydanticCustomError

    quoted = [repr(name) for name in known]
    expected = " or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else quoted[0]
    raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
