"""On-disk cache for search results and fetched pages: one SQLite file with a time-to-live.

A cache is an optimisation, never a requirement: if the cache directory cannot be created
or written (read-only home, full disk), the cache turns itself off with one warning and
every lookup becomes a miss.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ponder.settings.configuration import Configuration

Warn = Callable[[str], None]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (namespace, key)
)
"""


def _ignore(_: str) -> None:
    return None


class Cache:
    """A JSON value store keyed by (namespace, key), with entries that expire."""

    def __init__(
        self,
        path: Path,
        *,
        ttl_seconds: float = 24 * 3600,
        enabled: bool = True,
        warn: Warn | None = None,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self._path = path
        self._warn = warn or _ignore
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.enabled = enabled
        if enabled:
            self._open()

    @classmethod
    def from_config(cls, config: Configuration, folder: Path, warn: Warn | None = None) -> Cache:
        """The shared cache file in the cache ``folder`` (the machine's), honouring ``cache``
        and ``cache_ttl_hours``."""
        return cls(
            folder / "cache.sqlite",
            ttl_seconds=config.cache_ttl_hours * 3600,
            enabled=config.cache,
            warn=warn,
        )

    def _open(self) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)  # the cache folder
            conn = sqlite3.connect(self._path, timeout=10, check_same_thread=False)
            conn.execute(_SCHEMA)
            conn.commit()
            self._conn = conn
        except (OSError, sqlite3.Error) as exc:
            self._disable(exc)

    def _disable(self, exc: BaseException) -> None:
        # One warning, then silence: a broken cache must never fail a run.
        if self.enabled:
            self._warn(f"Cache disabled — cannot use the cache directory ({exc}).")
        self.enabled = False
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get(self, namespace: str, key: str) -> Any | None:
        """The cached value, or None when missing, expired or the cache is off."""
        if self._conn is None:
            return None
        with self._lock:
            try:
                row = self._conn.execute(
                    "SELECT value, expires FROM entries WHERE namespace = ? AND key = ?",
                    (namespace, key),
                ).fetchone()
            except sqlite3.Error as exc:
                self._disable(exc)
                return None
        if row is None or row[1] < time.time():
            return None
        return json.loads(row[0])

    def set(self, namespace: str, key: str, value: Any) -> None:
        """Store a JSON-serialisable value for ``ttl_seconds``."""
        if self._conn is None:
            return
        with self._lock:
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)",
                    (namespace, key, json.dumps(value), time.time() + self.ttl_seconds),
                )
                self._conn.commit()
            except sqlite3.Error as exc:
                self._disable(exc)

    # SQLite blocks; these keep it off the event loop (`langgraph dev` refuses blocking calls).
    async def aget(self, namespace: str, key: str) -> Any | None:
        return await asyncio.to_thread(self.get, namespace, key)

    async def aset(self, namespace: str, key: str, value: Any) -> None:
        await asyncio.to_thread(self.set, namespace, key, value)

    def purge_expired(self) -> int:
        """Delete expired entries; returns how many were removed."""
        if self._conn is None:
            return 0
        with self._lock:
            try:
                cur = self._conn.execute("DELETE FROM entries WHERE expires < ?", (time.time(),))
                self._conn.commit()
            except sqlite3.Error as exc:
                self._disable(exc)
                return 0
        return cur.rowcount

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
