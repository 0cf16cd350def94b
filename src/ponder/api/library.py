"""The API for your reference library: what ``ponder doctor`` says of it."""

from __future__ import annotations

from dataclasses import dataclass

from ponder.settings.configuration import Configuration


@dataclass(frozen=True)
class LibraryStatus:
    """One library file: its entries, the attachments a run reads, and what is wrong."""

    path: str
    entries: int
    attachments: int
    warnings: list[str]


def library_status(config: Configuration) -> list[LibraryStatus]:
    """Each library of ``config.library``, read as a run reads it (SearchError, naming the
    file, when one cannot be read at all)."""
    from ponder.services.search.backends.local.library.catalog import load_catalog

    catalog = load_catalog(config.library, config.docs_roots, config.docs_hidden_and_symlinks)
    return [
        LibraryStatus(lib.path, lib.entries, len(lib.located.files), list(lib.warnings))
        for lib in catalog.libraries
    ]
