"""The API for the user's own documents: index them, embed them, see how the index stands,
and search it — what ``ponder index``, ``ponder doctor`` and the MCP ``search_documents``
tool call.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ponder.core.errors import PonderError, StorageError
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment

if TYPE_CHECKING:
    from ponder.services.search.backends.local.index import EmbedStats, IndexStats, IndexStatus

Progress = Callable[[int, int], None]
Warn = Callable[[str], None]
Paths = Iterable[str | os.PathLike[str]]


@dataclass(frozen=True)
class Passage:
    """A passage of a document that matched a search: its file, where in it, the text."""

    file: str
    title: str
    location: str | None  # page, section or line range; None for a whole small file
    text: str


def index(
    paths: Paths,
    progress: Progress | None = None,
    warn: Warn | None = None,
    config: Configuration | None = None,
    stop: Callable[[], bool] | None = None,
) -> IndexStats:
    """Index (or refresh) the documents under ``paths``; Ctrl-C keeps what was indexed.
    ``config`` (else the environment's) says which folders' indexes serve them
    (``docs_roots``) and what they hold (``docs_hidden_and_symlinks``). ``stop()``, asked
    between two files, ends it early (:class:`IndexingStopped`), keeping what was indexed."""
    from ponder.services.search import index as build
    from ponder.services.search.backends.local.indexer import IndexStopped

    try:
        return build(paths, progress=progress, warn=warn, stop=stop, **_reach(config))
    except IndexStopped:
        raise IndexingStopped() from None


class IndexingStopped(PonderError):
    """Indexing stopped early, as asked (the server is shutting down)."""

    def __init__(self) -> None:
        super().__init__("Indexing stopped: the server is shutting down. What was indexed is kept.")


def embed(
    paths: Paths,
    config: Configuration,
    progress: Progress | None = None,
    warn: Warn | None = None,
) -> EmbedStats:
    """Embed the indexed passages with ``config.embed_model`` that have no vector yet."""
    from ponder.services.search import Embedder
    from ponder.services.search import embed as embed_passages

    embedder = Embedder(
        config.embed_model or "",
        config.ollama_hosts,
        config.request_timeout,
        limit=config.ollama_parallel,
        warn=warn,
    )
    try:
        return embed_passages(paths, embedder, progress=progress, warn=warn, **_reach(config))
    except sqlite3.Error as exc:
        raise StorageError(
            f"Cannot store the vectors in the index ({exc}) — is another `ponder index` "
            "running? Try again when it is done."
        ) from None


def index_status(paths: Paths, config: Configuration | None = None) -> IndexStatus:
    """How the index for ``paths`` compares with the files on disk."""
    from ponder.services.search import index_status as status

    return status(paths, **_reach(config))


def unknown_summary(counts: dict[str, int]) -> str:
    """Files of unknown types, counted by suffix: "12 .jpg, 3 .zip" ('' for none)."""
    from ponder.services.search.backends.local.files import unknown_summary as summary

    return summary(counts) if counts else ""


def readable_suffixes() -> list[str]:
    """The file name suffixes ponder reads (".docx", ".pdf", …), sorted: the formats its
    readers register, so what may be uploaded is what can be indexed."""
    from ponder.services.search.backends.local.formats import suffixes

    return sorted(suffixes())


def largest_readable() -> int:
    """The largest file, in bytes, that indexing reads (larger ones are skipped)."""
    from ponder.services.search.backends.local.indexer import MAX_FILE_BYTES

    return MAX_FILE_BYTES


def _reach(config: Configuration | None) -> dict[str, Any]:
    """Where the indexes are (the machine's cache folder, or a shared one), which of them
    serve, and whether this process writes them or only reads them."""
    config = config or Configuration.create()
    environment = read_environment()
    return {
        "cache_dir": environment.index_folder,
        "role": environment.index_role,
        "anchors": config.docs_roots,
        "hidden": config.docs_hidden_and_symlinks,
    }


def embedded_with(index_model: str | None, wanted: str | None) -> bool:
    """Whether an index embedded with ``index_model`` serves ``wanted`` (Ollama's naming)."""
    from ponder.services.search.backends.local.embeddings import same_model

    return same_model(index_model, wanted)


async def search_documents(
    query: str, limit: int = 5, *, warn: Warn | None = None, **options: Any
) -> list[Passage]:
    """The best passages of the user's documents (``docs``, or PONDER_DOCS) for ``query``.

    ``options`` are configuration fields (``docs``, ``embed_model``, …); ``search`` is
    always ``local``. Raises SearchError when there are no documents to search.
    """
    from ponder.services.search import make_search

    config = Configuration.create(**{**options, "search": "local"})
    backend = await asyncio.to_thread(
        make_search, config, warn or (lambda _message: None), environment=read_environment()
    )
    found = await backend.search(query, max(1, min(limit, 20)))
    return [Passage(r.url, r.title, r.location, r.text) for r in found]
