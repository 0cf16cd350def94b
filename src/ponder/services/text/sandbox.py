"""Parsing untrusted bytes where a deadline can stop it: a few worker processes.

A page or a document is parsed by C libraries (lxml, lexbor, pdfium) and by Python code
that holds the GIL; a thread cannot be stopped, and a hostile file can make either run for
minutes or fill memory. So parsing runs in worker processes, each with a ceiling on the
memory it may map: a job that runs past its deadline has its worker killed (and replaced),
and one that needs too much memory or crashes its worker fails alone. The served process
stays free to answer other requests meanwhile.

A worker is a fresh interpreter (``python -c``), not a ``multiprocessing`` child: those
re-run the caller's main script, and a script that calls ``ponder.research`` without an
``if __name__ == "__main__"`` guard would research again in every worker. Workers are
reused between jobs and live as long as the process that started them.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")

# What each worker may map beyond what it holds when it starts (the parsers' own code;
# trafilatura needs about 240 MB for a 3 MB page, the largest a page may be):
# a hostile page or PDF that needs more fails with a clear reason, alone.
MEMORY_BYTES = 512 * 2**20
# What a worker imports when it starts, so that its first job finds it ready.
_PRELOAD = [
    "ponder.services.text.extraction",
    "ponder.services.web.reader",
    "ponder.services.search.backends.local.reading",
    "ponder.services.search.backends.local.formats.readers",
    "trafilatura",
]


class ParseFailed(Exception):
    """A parse that ran past its deadline, needed too much memory or crashed its worker."""


def run(function: Callable[..., T], *args: Any, deadline: float) -> T:
    """``function(*args)`` in a worker process, within ``deadline`` seconds.

    ``function`` must be a module-level function (it is sent by name). Blocks the calling
    thread (call it through ``asyncio.to_thread`` from async code); raises ParseFailed.
    """
    return _pool().run(function, args, deadline)


def prewarm() -> None:
    """Start a worker now, if none is, so that the first job does not wait for its imports
    (about a second). Returns at once: the worker loads in its own process."""
    _pool().prewarm()


def workers() -> int:
    """How many jobs run at once: one per core, at least two, at most four."""
    return max(2, min(4, os.cpu_count() or 1))


class _Worker:
    """One worker process and the socket its jobs go through (pickled, by name)."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER_MAIN, str(theirs.fileno()), str(MEMORY_BYTES)],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # a native crash's last words are no user's business
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            start_new_session=True,  # Ctrl-C is the parent's to handle
        )
        theirs.close()
        self.conn = Connection(ours.detach())

    def run(self, function: Callable[..., Any], args: tuple[Any, ...], deadline: float) -> Any:
        try:
            self.conn.send((function, args))
            if not self.conn.poll(deadline):
                self.kill()
                raise ParseFailed(f"took longer than {deadline:g}s to parse")
            ok, value = self.conn.recv()
        except (EOFError, OSError):  # the worker died: a native crash, or the OS killed it
            self.kill()
            raise ParseFailed(
                "its parser crashed (or ran out of the memory a page may use)"
            ) from None
        if not ok:
            raise ParseFailed(value)
        return value

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        self.conn.close()


class _Pool:
    """Up to ``size`` workers, started when first needed, replaced when one is killed."""

    def __init__(self, size: int) -> None:
        self._idle: queue.LifoQueue[_Worker | None] = queue.LifoQueue()
        for _ in range(size):
            self._idle.put(None)  # a free place, its worker not started yet

    def prewarm(self) -> None:
        try:
            worker = self._idle.get_nowait()
        except queue.Empty:
            return  # every worker is busy, so they are all started
        if worker is None or not worker.alive:
            worker = _Worker()
        self._idle.put(worker)

    def run(self, function: Callable[..., Any], args: tuple[Any, ...], deadline: float) -> Any:
        worker = self._idle.get()
        try:
            if worker is None or not worker.alive:
                worker = _Worker()
            return worker.run(function, args, deadline)
        finally:
            self._idle.put(worker if worker is not None and worker.alive else None)


_POOL: _Pool | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> _Pool:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = _Pool(workers())
        return _POOL


# A worker's whole program: what it needs loaded, then its loop.
_WORKER_MAIN = "import sys; from ponder.services.text.sandbox import serve; serve(*sys.argv[1:])"


def serve(fd: str, memory: str) -> None:
    """A worker's loop: run each job it is sent, send back (ok, result or reason)."""
    import importlib

    for module in _PRELOAD:  # before the first job, not during it
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    _limit_memory(int(memory))
    conn = Connection(int(fd))
    while True:
        try:
            function, args = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        try:
            reply = (True, function(*args))
        except MemoryError:
            reply = (False, "needed more memory than a page may use")
        except Exception as exc:  # a parser's failure on hostile bytes is the job's answer
            reply = (False, f"unreadable ({type(exc).__name__}: {exc})")
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        if not reply[0] and reply[1].startswith("needed more memory"):
            return  # a fresh worker next time: the heap may be left fragmented


def _limit_memory(extra: int) -> None:
    """Cap the address space at what the worker maps now plus ``extra`` (where the OS can)."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (mapped + extra, mapped + extra))
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no RLIMIT_AS (macOS, Windows): the deadline still holds
