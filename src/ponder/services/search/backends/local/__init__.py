"""search=local: your documents (``docs``), indexed into SQLite FTS5 and searched with BM25,
fused with an embedding model's nearest passages when ``embed_model`` is set
(:mod:`ponder.services.search.backends.local`). No network at all; the last fallback of every other
search when ``docs`` is set (:mod:`ponder.services.search.factory` makes it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ponder.services.search.registry import Building, Patch, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration


def make(built: Building) -> SearchBackend:
    """The documents the factory opened (it refuses search=local without any)."""
    assert built.local is not None, "make_search refuses search=local without docs or library"
    return built.local


def present(config: Configuration) -> bool:
    """A path of your documents, or a library file, exists."""
    from pathlib import Path

    return any(Path(p).expanduser().exists() for p in config.docs) or any(
        Path(p).expanduser().is_file() for p in config.library
    )


def check(config: Configuration) -> Verdict:
    from pathlib import Path

    if not config.docs and not config.library:
        return Verdict(
            False,
            f"search={config.search} needs your documents — pass --docs PATH or --library FILE "
            "(or set PONDER_DOCS).",
        )
    missing = [p for p in config.docs if not Path(p).expanduser().exists()]
    if missing:
        return Verdict(False, f"Document path(s) missing: {', '.join(missing)} — check --docs.")
    if not config.docs:
        return Verdict(True, f"Your reference library: {', '.join(config.library)}")
    return Verdict(True, f"Local documents: {', '.join(config.docs)}")


def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
    """Over documents written in ``folder``; the index failing or slow at its boundary."""
    import sqlite3
    import time

    from ponder.services.search.backends.local.backend import LocalSearch
    from ponder.services.search.backends.local.index import LocalIndex
    from ponder.services.search.base import SearchResult

    docs = folder / "docs"
    docs.mkdir(exist_ok=True)
    for i in range(8):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\nContract tides number {i}.", "utf-8")
    if mode == "failing":

        def broken(self: LocalIndex, query: str, max_results: int, **_: Any) -> list[SearchResult]:
            raise sqlite3.DatabaseError("database disk image is malformed")

        patch.setattr(LocalIndex, "search", broken)
    if mode == "slow":
        real = LocalIndex.search

        def sluggish(self: LocalIndex, query: str, max_results: int, **kw: Any) -> Any:
            time.sleep(0.5)
            return real(self, query, max_results, **kw)

        patch.setattr(LocalIndex, "search", sluggish)
    return LocalSearch([docs], cache_dir=folder / "cache")


register(
    SearchPlugin(
        SearchBackendInfo(
            name="local",
            note="your documents",
            summary="your own documents: folders and files indexed on this machine",
            settings=("docs", "library", "embed_model", "docs_roots", "docs_hidden_and_symlinks"),
            order=30,
            offline=True,
            public=False,
            hybrid=True,
            needs="docs,library",
        ),
        make=make,
        check=check,
        present=present,
        contract=contract,
    )
)
