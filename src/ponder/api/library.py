"""The API for your reference library: what ``ponder doctor`` and the UI's Documents page
say of it, and whether a file is a library at all (an upload, before it is kept)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from ponder.core.errors import SearchError
from ponder.settings.configuration import Configuration

LIBRARY_SUFFIXES = (".bib", ".json")  # BibTeX; CSL JSON


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
    return libraries_status(config.library, config.docs_roots, config.docs_hidden_and_symlinks)


def libraries_status(
    paths: Sequence[str], roots: Sequence[str] = (), hidden: bool = False
) -> list[LibraryStatus]:
    """The libraries at ``paths``, each attachment found only inside the library's own
    folder or one of ``roots`` — as a run with those settings reads them."""
    from ponder.services.search.backends.local.library.catalog import load_catalog

    catalog = load_catalog(paths, roots, hidden)
    return [
        LibraryStatus(lib.path, lib.entries, len(lib.located.files), list(lib.warnings))
        for lib in catalog.libraries
    ]


def not_a_library(path: str, kind: str) -> str | None:
    """Why the file at ``path`` is no reference library, or None when it is one: read as
    ``kind`` (".bib": BibTeX, ".json": CSL JSON) in a parsing worker, under the limits a
    run reads a library under, it must hold at least one entry."""
    from ponder.services.search.backends.local.library.catalog import PARSE_SECONDS, parse_file
    from ponder.services.text.sandbox import ParseFailed, run

    if kind not in LIBRARY_SUFFIXES:
        raise ValueError(f"a library is {' or '.join(LIBRARY_SUFFIXES)}, not {kind}")
    if not os.path.isfile(path):
        raise SearchError(f"There is no file at {path}.")
    try:
        parsed = run(parse_file, path, deadline=PARSE_SECONDS)
    except ParseFailed as exc:
        return str(exc).replace("a page may use", "a library may use")
    if parsed.problem is not None:
        return parsed.problem
    if not parsed.entries:
        held = "item" if kind == ".json" else "entry"
        return f"it holds no {held} ponder can read"
    return None
