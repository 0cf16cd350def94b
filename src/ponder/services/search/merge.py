"""Local documents, the web and MCP tools, searched together and merged by rank."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult

Warn = Callable[[str], None]


def merge_by_rank(lists: Sequence[Sequence[SearchResult]], k: int = 60) -> list[SearchResult]:
    """Reciprocal-rank fusion: score 1/(k + rank) summed over lists, duplicates merged.

    Scores from different engines are not comparable, ranks are. With disjoint lists this
    interleaves them, the earlier list first on ties.
    """
    scores: dict[tuple[str, str | None], float] = {}
    first: dict[tuple[str, str | None], tuple[int, int, SearchResult]] = {}
    for list_no, results in enumerate(lists):
        for rank, result in enumerate(results, start=1):
            key = (result.url, result.location)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            first.setdefault(key, (rank, list_no, result))
    order = sorted(scores, key=lambda key: (-scores[key], first[key][0], first[key][1]))
    return [first[key][2] for key in order]


class HybridSearch:
    """Several sources searched concurrently (local documents, the web, MCP tools); each
    result keeps its ``origin``.

    A side failing is a warning and the others' results are returned; all failing raises
    SearchBackendError.
    """

    name = "hybrid"

    def __init__(self, *sides: SearchBackend, warn: Warn) -> None:
        self.sides = sides
        self._warn = warn

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        outcomes = await asyncio.gather(
            *(side.search(query, max_results) for side in self.sides), return_exceptions=True
        )
        lists: list[list[SearchResult]] = []
        errors: list[str] = []
        for backend, outcome in zip(self.sides, outcomes, strict=True):
            if isinstance(outcome, SearchBackendError):
                errors.append(f"{backend.name}: {outcome}")
            elif isinstance(outcome, BaseException):
                raise outcome  # cancellation or a bug: not a search failure
            else:
                lists.append(outcome)
        if not lists:
            raise SearchBackendError("Hybrid search failed — " + "; ".join(errors))
        for error in errors:
            self._warn(f"Hybrid search is using only part of its sources: {error}")
        return merge_by_rank(lists)[:max_results]
