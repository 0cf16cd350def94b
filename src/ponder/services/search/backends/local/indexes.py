"""One index per folder, shared by every set of document roots that reaches into it.

A set of roots is served by the indexes of its folders: ``[root, root/a]`` is ``root``'s
index alone, and ``root/a`` by itself is a scope of ``root``'s index (refreshed and searched
alone, :mod:`.scope`) when ``root`` is one of the ``anchors`` (the operator's document
roots, ``docs_roots``) or already has an index. So no choice of roots reads or embeds a
folder's files twice; before this, each distinct set had an index of its own, and a caller
naming ``[root, root/a]``, ``[root, root/b]``… had the whole corpus read and embedded again
each time. Only a folder with no index above it gets its own.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from ponder.services.search.backends.local.embeddings import Embedder
from ponder.services.search.backends.local.index import (
    IndexStatus,
    LocalIndex,
    Progress,
    index_path,
    resolve_roots,
)
from ponder.services.search.backends.local.indexer import IndexStats, Stop
from ponder.services.search.backends.local.ranking import Warn
from ponder.services.search.backends.local.results import search
from ponder.services.search.backends.local.vectors import EmbedStats
from ponder.services.search.base import SearchResult
from ponder.settings.paths import IndexRole

Paths = Iterable[str | os.PathLike[str]]


def plan(
    paths: Paths, anchors: Paths = (), hidden: bool = False, *, cache_dir: Path
) -> list[tuple[Path, list[Path]]]:
    """Each folder whose index serves ``paths``, with the roots it serves there (the
    indexes in the cache folder ``cache_dir``)."""
    roots = resolve_roots(paths)
    roots = [r for r in roots if not any(other in r.parents for other in roots)]
    known = resolve_roots(anchors)
    served: dict[Path, list[Path]] = {}
    for root in roots:
        served.setdefault(_folder_of(root, known, hidden, cache_dir), []).append(root)
    return sorted(served.items())


def _folder_of(root: Path, anchors: list[Path], hidden: bool, cache_dir: Path) -> Path:
    """The outermost anchor holding ``root``, else its outermost folder that has an index,
    else ``root`` itself. Not through a hidden folder unless ``hidden``: an index of the
    folder above would drop that folder's files at its next refresh."""
    above = [*reversed(root.parents), root]
    usable = [f for f in above if hidden or not _hidden_between(f, root)]
    for folder in usable:
        if folder in anchors:
            return folder
    for folder in usable:
        if _has_index(folder, cache_dir):
            return folder
    return root


def _hidden_between(folder: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in root.relative_to(folder).parts)


def _has_index(folder: Path, cache_dir: Path) -> bool:
    try:
        return index_path([folder], cache_dir).exists()
    except OSError:  # no cache folder: no index anywhere
        return False


class FolderIndexes:
    """The indexes that hold a set of document roots, used as one: in the cache folder
    ``cache_dir`` (``db_path``: a single index in that file, for tests and benchmarks),
    as their own machine's, their shared folder's indexer or its reader (``role``)."""

    def __init__(
        self,
        paths: Paths,
        *,
        cache_dir: Path | None = None,
        anchors: Paths = (),
        hidden: bool = False,
        warn: Warn | None = None,
        db_path: Path | None = None,
        role: IndexRole = "own",
    ) -> None:
        self.readonly = role == "reader"
        if db_path is not None:
            self.units = [LocalIndex(paths, db_path=db_path, warn=warn, hidden=hidden, role=role)]
        elif cache_dir is None:
            raise TypeError("FolderIndexes needs the cache folder (cache_dir) or a db_path")
        else:
            self.units = [
                LocalIndex(
                    [folder], cache_dir=cache_dir, scope=roots, warn=warn, hidden=hidden, role=role
                )
                for folder, roots in plan(paths, anchors, hidden, cache_dir=cache_dir)
            ]

    @property
    def key(self) -> str:
        """Names the indexes and the parts of them in use (None: one in memory)."""
        return "\n".join(f"{unit.db_path}:{unit.scope}" for unit in self.units)

    @property
    def in_memory(self) -> bool:
        return any(str(unit.db_path) == ":memory:" for unit in self.units)

    def close(self) -> None:
        for unit in self.units:
            unit.close()

    def index(
        self,
        progress: Progress | None = None,
        warn: Warn | None = None,
        workers: int | None = None,
        stop: Stop | None = None,
    ) -> IndexStats:
        """Refresh each index (the part of it in use); the counts are summed."""
        total = IndexStats()
        for unit in self.units:
            stats = unit.index(_after(progress, total.files), warn, workers, stop)
            for name in ("files", "indexed", "unchanged", "removed", "skipped", "passages"):
                setattr(total, name, getattr(total, name) + getattr(stats, name))
            total.seconds += stats.seconds
            total.workers = max(total.workers, stats.workers)
            total.skipped_files += stats.skipped_files
            total.left_out += stats.left_out
            for suffix, count in stats.unknown_types.items():
                total.unknown_types[suffix] = total.unknown_types.get(suffix, 0) + count
        return total

    def embed(self, embedder: Embedder, progress: Progress | None = None) -> EmbedStats:
        total = EmbedStats(model=embedder.model)
        for unit in self.units:
            stats = unit.embed(embedder, _after(progress, total.total))
            total.embedded += stats.embedded
            total.total += stats.total
            total.seconds += stats.seconds
        return total

    def status(self) -> IndexStatus:
        """The indexes' figures summed; the embedding model when they all agree."""
        each = [unit.status() for unit in self.units]
        if not each:
            return IndexStatus(Path(":memory:"), 0, 0, 0, 0)
        summed = IndexStatus(each[0].db_path, 0, 0, 0, 0)
        for status in each:
            for name in ("indexed_files", "stale_files", "skipped_files", "passages", "embedded"):
                setattr(summed, name, getattr(summed, name) + getattr(status, name))
            summed.skipped += status.skipped
            summed.fresh += status.fresh
            for suffix, count in status.unknown_types.items():
                summed.unknown_types[suffix] = summed.unknown_types.get(suffix, 0) + count
        models = {s.embed_model for s in each if s.passages}
        summed.embed_model = models.pop() if len(models) == 1 else None
        return summed

    def search(
        self,
        query: str,
        max_results: int,
        per_file: int = 2,
        query_vector: list[float] | None = None,
        embed_model: str | None = None,
    ) -> list[SearchResult]:
        """One folder: its index's search; several: their files ranked together."""
        if len(self.units) == 1:
            return self.units[0].search(
                query, max_results, per_file=per_file, query_vector=query_vector,
                embed_model=embed_model,
            )  # fmt: skip
        with contextlib.ExitStack() as held:
            for unit in self.units:
                held.enter_context(unit.lock)
            rankings = [unit.ranking for unit in self.units]
            return search(rankings, query, max_results, per_file, query_vector, embed_model)


def _after(progress: Progress | None, done_before: int) -> Progress | None:
    """One index's progress, counted on from the indexes before it."""
    if progress is None:
        return None
    return lambda done, total: progress(done_before + done, done_before + total)


# -- public entry points ------------------------------------------------------------------


def index(
    paths: Paths,
    progress: Progress | None = None,
    warn: Warn | None = None,
    *,
    cache_dir: Path,
    anchors: Paths = (),
    hidden: bool = False,
    stop: Stop | None = None,
    role: IndexRole = "own",
) -> IndexStats:
    """Index (or refresh) the documents under ``paths``, in the cache folder ``cache_dir``;
    what ``ponder index PATH`` runs. ``stop()`` ends it between two files (IndexStopped)."""
    indexes = FolderIndexes(
        paths, cache_dir=cache_dir, anchors=anchors, hidden=hidden, warn=warn, role=role
    )
    try:
        return indexes.index(progress, stop=stop)
    finally:
        indexes.close()


def embed(
    paths: Paths,
    embedder: Embedder,
    progress: Progress | None = None,
    warn: Warn | None = None,
    *,
    cache_dir: Path,
    anchors: Paths = (),
    hidden: bool = False,
    role: IndexRole = "own",
) -> EmbedStats:
    """Embed the indexed passages under ``paths`` that have no vector yet (``ponder index
    --embed-model``). Raises ModelNotFoundError, OllamaUnavailableError or ModelCallError;
    the batches embedded before a failure are kept."""
    indexes = FolderIndexes(
        paths, cache_dir=cache_dir, anchors=anchors, hidden=hidden, warn=warn, role=role
    )
    try:
        return indexes.embed(embedder, progress)
    finally:
        indexes.close()


def index_status(
    paths: Paths,
    *,
    cache_dir: Path,
    anchors: Paths = (),
    hidden: bool = False,
    role: IndexRole = "own",
) -> IndexStatus:
    """How the indexes for ``paths`` compare with the files on disk (``ponder doctor``)."""
    indexes = FolderIndexes(paths, cache_dir=cache_dir, anchors=anchors, hidden=hidden, role=role)
    try:
        return indexes.status()
    finally:
        indexes.close()
