"""A web backend's answers cached on disk, per backend and query (``cache``, its TTL)."""

from __future__ import annotations

import json

from ponder.services.search.base import SearchBackend, SearchResult
from ponder.services.storage.cache import Cache


class CachedSearch:
    """A search backend whose answers (including 'no results') are cached by backend + query.

    Failures are not cached, so a later run retries them.
    """

    def __init__(self, backend: SearchBackend, cache: Cache) -> None:
        self.backend = backend
        self.cache = cache
        self.name = backend.name
        self.base_url = getattr(backend, "base_url", "")

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        key = json.dumps([query.strip(), max_results])
        # Per endpoint too: two SearXNG instances, or two Wikipedia editions, differ.
        endpoint = self.base_url
        namespace = f"search:{self.backend.name}" + (f"@{endpoint}" if endpoint else "")
        cached = await self.cache.aget(namespace, key)
        if isinstance(cached, list):
            return [SearchResult.model_validate(item) for item in cached]
        results = await self.backend.search(query, max_results)
        await self.cache.aset(namespace, key, [r.model_dump() for r in results])
        return results
