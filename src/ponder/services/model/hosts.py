"""Several Ollama hosts: each call goes to the least busy one that is up.

A host runs at most ``limit`` calls at once (Ollama's own parallelism there, one for a GPU
with default settings); a call waits for a free slot rather than queue on a busy host. A
host that refuses, fails or lacks the model rests for ``REST_SECONDS`` and the call goes
to another; when every host is resting they are tried anyway, the soonest back first, so
a host that came back is found without waiting out its rest.

One pool exists per set of hosts per event loop (asyncio primitives belong to a loop), so
every node and every researcher of a run share it. The limit holds per process: several
server workers, or several people's CLIs, do not see each other's calls.

``on_a_host`` runs one call this way: on the least busy host, and on another when that one
fails before answering. ``on_a_host_blocking`` runs a blocking call (an embedding, made in a
worker thread) the same way, through one event loop the process keeps for such calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypeVar

from ponder.core.errors import (
    ModelCallError,
    ModelNotFoundError,
    OllamaUnavailableError,
    PonderError,
)

REST_SECONDS = 30.0
R = TypeVar("R")


@dataclass
class Host:
    url: str
    in_flight: int = 0
    served: int = 0
    resting_until: float = 0.0

    def resting(self, now: float) -> bool:
        return now < self.resting_until


class NoHostLeft(Exception):
    """Every host was tried for this call."""


class HostPool:
    def __init__(self, urls: list[str], limit: int) -> None:
        self.hosts = [Host(url) for url in urls]
        self.limit = limit
        self._changed = asyncio.Condition()
        self._waking: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def lease(self, tried: set[str]) -> AsyncIterator[Host]:
        """A host not in ``tried`` with a free slot, held for one call; waits for a slot (or
        for a resting host's rest to end). Raises NoHostLeft when every host was tried."""
        async with self._changed:
            while (host := self._pick(tried)) is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), self._until_a_rest_ends())
            host.in_flight += 1
        try:
            yield host
        finally:
            host.in_flight -= 1  # at once: even a cancelled call gives its slot back
            waking = asyncio.get_running_loop().create_task(self._wake())
            self._waking.add(waking)
            waking.add_done_callback(self._waking.discard)

    async def _wake(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _until_a_rest_ends(self) -> float | None:
        now = time.monotonic()
        ends = [h.resting_until - now for h in self.hosts if h.resting(now)]
        return max(min(ends), 0.0) if ends else None

    def _pick(self, tried: set[str]) -> Host | None:
        untried = [h for h in self.hosts if h.url not in tried]
        if not untried:
            raise NoHostLeft
        now = time.monotonic()
        candidates = [h for h in untried if not h.resting(now)] or untried
        free = [h for h in candidates if h.in_flight < self.limit]
        if not free:
            return None
        return min(free, key=lambda h: (h.in_flight, h.resting_until, h.served))

    def rest(self, host: Host) -> bool:
        """Rest a host that failed; True when it was up until now (news worth a warning)."""
        was_up = host.resting_until == 0.0
        host.resting_until = time.monotonic() + REST_SECONDS
        return was_up

    def recovered(self, host: Host) -> None:
        host.resting_until = 0.0
        host.served += 1


_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, ...], HostPool]] = (
    weakref.WeakKeyDictionary()
)


def host_pool(urls: list[str], limit: int) -> HostPool:
    """The pool for these hosts on the running event loop."""
    pools = _POOLS.setdefault(asyncio.get_running_loop(), {})
    key = (*urls, f"limit={limit}")
    if key not in pools:
        pools[key] = HostPool(urls, limit)
    return pools[key]


async def on_a_host(
    urls: list[str],
    limit: int,
    attempt: Callable[[str], Awaitable[R]],
    *,
    warn: Callable[[str], None],
    started: Callable[[], bool] | None = None,
) -> tuple[R, str]:
    """``attempt(url)`` on one host, and the host that answered; with several, on the least
    busy, and on another when that one fails before answering (it then rests a while).

    ``started`` says whether a failed call had begun to answer: a stream that failed after
    its first piece is not moved, since part of it may have been shown, so the caller's
    retry (which withdraws the draft) takes over.
    """
    if len(urls) == 1:
        return await attempt(urls[0]), urls[0]
    pool = host_pool(urls, limit)
    tried: set[str] = set()
    failures: list[PonderError] = []
    while True:
        try:
            async with pool.lease(tried) as host:
                result = await attempt(host.url)
        except NoHostLeft:  # every host failed this call
            if all(isinstance(f, OllamaUnavailableError) for f in failures):
                raise OllamaUnavailableError(",".join(urls)) from None
            raise failures[-1] from None
        except (OllamaUnavailableError, ModelNotFoundError, ModelCallError) as exc:
            if pool.rest(host):
                warn(
                    f"Ollama host {host.url} failed ({exc}); calls go to the other hosts "
                    f"for the next {REST_SECONDS:g} s."
                )
            tried.add(host.url)
            failures.append(exc)
            if started is not None and started():
                raise
            continue
        pool.recovered(host)
        return result, host.url


def on_a_host_blocking(
    urls: list[str], limit: int, attempt: Callable[[str], R], *, warn: Callable[[str], None]
) -> tuple[R, str]:
    """:func:`on_a_host` for a blocking ``attempt`` made from a thread: the same choice of
    host, rests and failover, in a pool on the process's loop for blocking calls, so a host
    that failed rests for every such call of the process. Warnings are given in the
    caller's thread, after the call (a run's warn belongs to the run's thread)."""
    if len(urls) == 1:
        return attempt(urls[0]), urls[0]
    said: list[str] = []

    async def in_a_thread(url: str) -> R:
        return await asyncio.to_thread(attempt, url)

    call = on_a_host(urls, limit, in_a_thread, warn=said.append)
    future: Future[tuple[R, str]] = asyncio.run_coroutine_threadsafe(call, _blocking_loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()  # Ctrl-C or a failure: the call no longer holds a slot
        raise
    finally:
        for message in said:
            warn(message)


_LOOP_GUARD = threading.Lock()
_LOOP: dict[int, asyncio.AbstractEventLoop] = {}  # by process id: a forked child makes its own


def _blocking_loop() -> asyncio.AbstractEventLoop:
    """The event loop, run by a thread of its own, where blocking calls' pools live."""
    with _LOOP_GUARD:
        pid = os.getpid()
        if pid not in _LOOP:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="ponder-hosts", daemon=True).start()
            _LOOP.clear()
            _LOOP[pid] = loop
        return _LOOP[pid]
