"""The contract every search backend honours: result shape, empty results, failures,
cancellation — each check runnable against any backend's contract fixture.

A fixture, ``(mode, folder, monkeypatch) -> backend``, makes the backend answer in each of
``MODES`` at its own boundary (a fake transport, a patched client, a written corpus, a
local server), never through the internet. tests/unit/test_search_contract.py runs every
check against every registered backend; a test with a backend of its own runs
:func:`honours` against it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult

MODES = ("results", "empty", "failing", "slow")
QUERY = {"empty": "xylophonic quasar", "results": "contract tides spring"}
CANCEL_SECONDS = 0.3  # how long a cancelled search may take to stop
Factory = Callable[[str, Path, pytest.MonkeyPatch], SearchBackend]


async def names_who_found(factory: Factory, folder: Path, patch: pytest.MonkeyPatch) -> None:
    """Each result says which backend found it — the backend itself or, for a wrapper,
    one of those it wraps — so a warning and a source can name where they came from."""
    backend = factory("results", folder, patch)
    results = await backend.search(QUERY["results"], 3)
    inner = {backend.name, *_names_inside(backend)}
    assert results and {r.backend for r in results} <= inner, (backend.name, results)


def _names_inside(backend: Any) -> set[str]:
    names: set[str] = set()
    for attribute in ("backend", "backends", "sides"):
        found = getattr(backend, attribute, None)
        for part in found if isinstance(found, (list, tuple)) else [found] if found else []:
            names |= {part.name, *_names_inside(part)}
    return names


async def result_shape(factory: Factory, folder: Path, patch: pytest.MonkeyPatch) -> None:
    results = await factory("results", folder, patch).search(QUERY["results"], 3)
    assert 0 < len(results) <= 3
    for result in results:
        assert isinstance(result, SearchResult)
        assert result.title and result.url and result.backend
        assert result.origin in ("web", "local", "mcp")
        assert result.text
        if result.origin == "local":
            assert Path(result.url).is_absolute() and result.location
    assert len({(r.url, r.location) for r in results}) == len(results)


async def empty_is_empty(factory: Factory, folder: Path, patch: pytest.MonkeyPatch) -> None:
    assert await factory("empty", folder, patch).search(QUERY["empty"], 3) == []


async def failure_raises(factory: Factory, folder: Path, patch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SearchBackendError):
        await factory("failing", folder, patch).search(QUERY["results"], 3)


async def cancellation_is_prompt(
    factory: Factory, folder: Path, patch: pytest.MonkeyPatch, allowed: float = CANCEL_SECONDS
) -> None:
    backend = factory("slow", folder, patch)
    task = asyncio.create_task(backend.search(QUERY["results"], 3))
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.perf_counter() - started < allowed


async def honours(factory: Factory, folder: Path) -> None:
    """Every check of the contract, each with a folder and patches of its own."""
    checks = (names_who_found, result_shape, empty_is_empty, failure_raises)
    for check in (*checks, cancellation_is_prompt):
        with pytest.MonkeyPatch.context() as patch:
            place = folder / check.__name__
            place.mkdir(parents=True)
            await check(factory, place, patch)
