"""The ``local`` search backend: your documents, indexed on first use and kept fresh."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from ponder.core.errors import PonderError
from ponder.services.search.backends.local.embeddings import Embedder
from ponder.services.search.backends.local.index import Warn
from ponder.services.search.backends.local.indexes import FolderIndexes
from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.settings.paths import IndexRole


def _ignore(_: str) -> None:
    return None


class LocalSearch:
    """The ``local`` search backend: indexes on first use, then refreshes at most every
    ``refresh_seconds`` so edits made during a long session are picked up; and at the
    first search of each run (:meth:`refresh_at_next_search`).

    With an ``embedder`` (semantic search on), each refresh embeds the new passages and each
    query is embedded too. If embedding fails (the model is not pulled, Ollama is away),
    one warning says why and this backend goes on with BM25 alone.

    ``anchors`` and ``hidden``: which indexes serve the paths, and what they hold
    (:class:`.indexes.FolderIndexes`). A ``reader`` of indexes shared by replicas never
    refreshes nor embeds them: their indexer does (:mod:`.shared`).
    """

    name = "local"
    _last_refresh: ClassVar[dict[str, float]] = {}  # shared across instances in this process

    def __init__(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        cache_dir: Path | None = None,
        warn: Warn | None = None,
        db_path: Path | None = None,
        refresh_seconds: float = 60.0,
        embedder: Embedder | None = None,
        anchors: Iterable[str | os.PathLike[str]] = (),
        hidden: bool = False,
        role: IndexRole = "own",
    ) -> None:
        self.index = FolderIndexes(
            paths, cache_dir=cache_dir, anchors=anchors, hidden=hidden, warn=warn,
            db_path=db_path, role=role,
        )  # fmt: skip
        self.refresh_seconds = refresh_seconds
        self.embedder = embedder
        self._warn = warn or _ignore
        self._refresh_lock = asyncio.Lock()
        self._own_refresh: float | None = None
        self._embedded = False  # this instance brought the vectors up to date since its refresh

    @classmethod
    def refresh_at_next_search(cls) -> None:
        """A run begins: its first search brings the indexes up to date, so it reads a
        document edited a moment ago as it is now (in a long-lived ``ponder ui``, the last
        run's refresh may be seconds old). Walking an unchanged folder is cheap (a few ms
        for the 317 pages of Python's library docs); the interval spares a run's later
        searches even that."""
        cls._last_refresh.clear()

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            await self._refresh()
            vector = await self._embed_query(query)
            model = self.embedder.model if self.embedder else None
            return await asyncio.to_thread(
                self.index.search, query, max_results, query_vector=vector, embed_model=model
            )
        except sqlite3.Error as exc:  # a corrupt or locked index is a backend failure
            # No file path: a served caller reads this (`ponder doctor` shows the index).
            raise SearchBackendError(f"the local document index failed: {exc}") from exc

    async def _embed_query(self, query: str) -> list[float] | None:
        if self.embedder is None:
            return None
        try:
            return await asyncio.to_thread(self.embedder.query, query)
        except PonderError as exc:
            self._semantic_off(exc)
            return None

    def _semantic_off(self, problem: Exception) -> None:
        self.embedder = None
        self._warn(f"Semantic search is off for this run, keyword search goes on: {problem}")

    async def _refresh(self) -> None:
        if self.index.readonly:  # the indexer keeps a shared index fresh
            return
        key, shared = self.index.key, not self.index.in_memory
        async with self._refresh_lock:
            # An on-disk index is shared by every instance in the process; one in memory is not.
            last = self._last_refresh.get(key) if shared else self._own_refresh
            if last is None or time.monotonic() - last >= self.refresh_seconds:
                await asyncio.to_thread(self.index.index)
                self._own_refresh = time.monotonic()
                if shared:
                    self._last_refresh[key] = self._own_refresh
                self._embedded = False
            if self.embedder is not None and not self._embedded:
                # Even when another instance refreshed the text: it may not embed.
                try:
                    await asyncio.to_thread(self.index.embed, self.embedder)
                    self._embedded = True
                except (PonderError, OSError, sqlite3.Error) as exc:
                    self._semantic_off(exc)
