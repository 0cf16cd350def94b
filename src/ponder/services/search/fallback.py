"""Try search backends in order, saying so whenever one fails and the next takes over."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult

Warn = Callable[[str], None]

# Shared by every FallbackSearch in the process: each round and each researcher builds its
# own, and an outage seen by one should spare the others their retries.
_DOWN_UNTIL: dict[str, float] = {}


class _FailedForAnother(Exception):
    """The backend failed for another query of this round while this one waited."""


def _key(backend: SearchBackend) -> str:
    return f"{backend.name}@{getattr(backend, 'base_url', '')}"


class FallbackSearch:
    """The first backend that answers wins; failures are warned about, never silent.

    A backend that failed is skipped for ``cooldown`` seconds — by every FallbackSearch in
    the process — so one outage costs one set of retries rather than one per query; the
    queries of one round (one instance) that are waiting on it give up at the same moment. When
    every backend fails the wrapper warns and returns [] if ``empty_when_exhausted``, else
    raises SearchBackendError.
    """

    def __init__(
        self,
        backends: Sequence[SearchBackend],
        warn: Warn,
        *,
        cooldown: float = 300.0,
        empty_when_exhausted: bool = False,
    ) -> None:
        if not backends:
            raise ValueError("FallbackSearch needs at least one backend")
        self.backends = list(backends)
        self.name = self.backends[0].name
        self.cooldown = cooldown
        self.empty_when_exhausted = empty_when_exhausted
        self._warn = warn
        # Per instance, i.e. per round: a backend that failed for one query of the round.
        self._failed: dict[str, asyncio.Event] = {}

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        errors: list[str] = []
        now = time.monotonic()
        live = [b for b in self.backends if _DOWN_UNTIL.get(_key(b), 0.0) <= now]
        order = live or self.backends  # all cooling down: try them all again
        for backend in order:
            failed = self._failed.setdefault(_key(backend), asyncio.Event())
            # Giving up on a backend helps only when another one can answer instead.
            last = backend is order[-1]
            try:
                return await self._ask(backend, query, max_results, None if last else failed)
            except _FailedForAnother:
                errors.append(f"{backend.name}: failed for another query")
            except SearchBackendError as exc:
                failed.set()  # the round's other queries stop waiting on it now
                errors.append(f"{backend.name}: {exc}")
                _DOWN_UNTIL[_key(backend)] = time.monotonic() + self.cooldown
                following = self._next_after(backend, order)
                if following is not None:
                    self._warn(
                        f"Search backend '{backend.name}' failed ({exc}); "
                        f"falling back to '{following.name}'."
                    )
        message = f"Every search backend failed for {query!r} — " + "; ".join(errors)
        if not self.empty_when_exhausted:
            raise SearchBackendError(message)
        # An error's own message may end its sentence already ("… (--searxng-url).").
        self._warn(message.rstrip(".") + ". Continuing without search results for this query.")
        return []

    @staticmethod
    async def _ask(
        backend: SearchBackend, query: str, max_results: int, failed: asyncio.Event | None
    ) -> list[SearchResult]:
        """The backend's answer, unless it fails for another query first (``failed`` is set):
        one dead backend costs a round one timeout, not one per query."""
        if failed is None:
            return await backend.search(query, max_results)
        if failed.is_set():
            raise _FailedForAnother
        call = asyncio.ensure_future(backend.search(query, max_results))
        gone = asyncio.ensure_future(failed.wait())
        try:
            await asyncio.wait({call, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not call.done():
                call.cancel()
        if call.done() and not call.cancelled():
            return call.result()
        raise _FailedForAnother

    @staticmethod
    def forget_failures() -> None:
        """Try every backend again at once (after the network came back, and in tests)."""
        _DOWN_UNTIL.clear()

    @staticmethod
    def _next_after(backend: SearchBackend, order: list[SearchBackend]) -> SearchBackend | None:
        position = order.index(backend)
        return order[position + 1] if position + 1 < len(order) else None
