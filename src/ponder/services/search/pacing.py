"""Requests to a public API, paced the way its operators ask: one at a time per host, each
starting at least ``interval`` seconds after the previous one started.

arXiv asks for one request every three seconds over a single connection; Wikimedia asks
for requests in series rather than in parallel. A pace is shared by the whole process —
every round and researcher builds its own backends, and each runs its queries
concurrently — and it works across event loops and threads (a run's nodes may run on
either), so its state sits behind a thread lock and waiters poll rather than share an
asyncio primitive. Waiters go in the order they came; one that is cancelled leaves the
queue at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

POLL = 0.05  # seconds between looks while another request holds the host
_ALL: weakref.WeakSet[Pace] = weakref.WeakSet()


class PaceTimeout(Exception):
    """A request waited longer than its pace allows for its turn."""


@dataclass
class _Host:
    queue: deque[object] = field(default_factory=deque)
    busy: bool = False
    next_start: float = 0.0


class Pace:
    """One request at a time per host, starts spaced by ``interval`` seconds."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._hosts: dict[str, _Host] = {}
        _ALL.add(self)

    def forget(self) -> None:
        """Start afresh, as a new process would (tests)."""
        with self._lock:
            self._hosts.clear()

    @contextlib.asynccontextmanager
    async def turn(self, url: str, max_wait: float | None = None) -> AsyncIterator[None]:
        """Hold the turn of ``url``'s host while the body runs; raises PaceTimeout when the
        turn does not come within ``max_wait`` seconds."""
        host = self._host(url)
        ticket = object()
        deadline = None if max_wait is None else time.monotonic() + max_wait
        with self._lock:
            host.queue.append(ticket)
        try:
            await self._wait_for(host, ticket, deadline)
        except BaseException:
            with self._lock:
                if ticket in host.queue:
                    host.queue.remove(ticket)
            raise
        try:
            yield
        finally:
            with self._lock:
                host.busy = False

    async def _wait_for(self, host: _Host, ticket: object, deadline: float | None) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                if host.queue[0] is ticket and not host.busy and now >= host.next_start:
                    host.queue.popleft()
                    host.busy = True
                    host.next_start = now + self.interval
                    return
                first = host.queue[0] is ticket and not host.busy
                wait = host.next_start - now if first else POLL
            if deadline is not None and time.monotonic() + wait > deadline:
                raise PaceTimeout
            await asyncio.sleep(max(wait, 0.001))

    def _host(self, url: str) -> _Host:
        key = urlsplit(url).netloc.lower() or url
        with self._lock:
            return self._hosts.setdefault(key, _Host())


def forget_all() -> None:
    """Every pace in the process starts afresh (tests)."""
    for pace in list(_ALL):
        pace.forget()
