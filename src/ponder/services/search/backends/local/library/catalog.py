"""The reference libraries of a run: read once per change, their attachments located, and
the search whose hits on an attachment carry its entry's metadata.

A library file is read in a parsing worker (:mod:`ponder.services.text.sandbox`), under a
size cap, an entry cap and a deadline, and kept in memory until it changes. Its
attachments are found again on each use (a file added since is seen). What is wrong is
said in a few lines per library (:meth:`Catalog.warnings`), the run's first check says
them once; a library that cannot be read at all is a SearchError naming it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ponder.core.errors import SearchError
from ponder.services.search.backends.local.library.attachments import Located, locate
from ponder.services.search.backends.local.library.entry import Entry
from ponder.services.search.base import SearchBackend, SearchResult

MAX_LIBRARY_BYTES = 50 * 2**20  # a library of tens of thousands of entries, abstracts and all
MAX_ENTRIES = 50_000
PARSE_SECONDS = 60.0
_FIX = "export it again from your reference manager (BibTeX .bib or CSL JSON .json)"


@dataclass(frozen=True)
class Parsed:
    """A library file as read: its entries, the blocks that were no entry, and what made
    it unreadable as a whole (None: it was read)."""

    entries: list[Entry] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    beyond: int = 0  # entries past MAX_ENTRIES, left out
    problem: str | None = None


def parse_file(path: str) -> Parsed:
    """Read the library at ``path`` (run in a parsing worker): BibTeX, or CSL JSON when its
    name ends in .json (or its text starts as JSON does)."""
    from ponder.services.search.backends.local.library.bibtex import NotBibTeX, read_bibtex
    from ponder.services.search.backends.local.library.csl import NotCslJson, read_csl_json

    try:
        with open(path, "rb") as file:
            data = file.read(MAX_LIBRARY_BYTES + 1)
    except OSError as exc:
        return Parsed(problem=f"it cannot be opened ({exc.strerror or exc})")
    if len(data) > MAX_LIBRARY_BYTES:
        return Parsed(problem=f"it is larger than {MAX_LIBRARY_BYTES // 2**20} MB")
    text = data.decode("utf-8-sig", errors="replace")
    json_like = text.lstrip()[:1] in ("[", "{")
    try:
        if path.lower().endswith(".json") or json_like:
            entries, failures = read_csl_json(text)
        else:
            entries, failures = read_bibtex(text)
    except (NotBibTeX, NotCslJson) as exc:
        return Parsed(problem=str(exc))
    return Parsed(entries[:MAX_ENTRIES], failures, max(0, len(entries) - MAX_ENTRIES))


@dataclass
class Library:
    """One library file, read and located."""

    path: str
    entries: int
    located: Located
    warnings: list[str]


class Catalog:
    """The libraries of a run: each attachment with its entry."""

    def __init__(self, libraries: Sequence[Library]) -> None:
        self.libraries = list(libraries)
        self.entries: dict[str, Entry] = {}
        for library in self.libraries:
            for path, entry in library.located.files.items():
                self.entries.setdefault(path, entry)

    @property
    def files(self) -> list[str]:
        """Every attachment to read (real paths)."""
        return list(self.entries)

    @property
    def folders(self) -> list[str]:
        """The libraries' own folders: where each one's attachments are indexed together."""
        return list(dict.fromkeys(str(Path(lib.path).parent) for lib in self.libraries))

    def warnings(self) -> list[str]:
        return [line for library in self.libraries for line in library.warnings]

    def described(self, result: SearchResult) -> SearchResult:
        """``result`` as its entry describes it, when it is an attachment: the entry's
        title, authors, date and link stand for the file's own metadata."""
        entry = self.entries.get(result.url) if result.origin == "local" else None
        if entry is None:
            return result
        update = {
            "title": entry.title or result.title,
            "authors": entry.authors or result.authors,
            "date": entry.date or result.date,
            "link": entry.link,
        }
        return SearchResult(**{**result.model_dump(), **update})


class CitedSearch:
    """The local search, whose hits on a library's attachments are cited as the papers."""

    name = "local"

    def __init__(self, inner: SearchBackend, catalog: Catalog) -> None:
        self.inner = inner
        self.catalog = catalog

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        found = await self.inner.search(query, max_results)
        return [self.catalog.described(result) for result in found]


# -- loading ------------------------------------------------------------------------------

_PARSED: dict[tuple[str, int, int], Parsed] = {}
_PARSED_LOCK = threading.Lock()
_KEPT = 16  # library versions kept in memory
_SHOWN = 5  # unreadable entries a warning names


def load_catalog(paths: Sequence[str], roots: Sequence[str] = (), hidden: bool = False) -> Catalog:
    """The libraries at ``paths``, each attachment read only inside the library's folder or
    one of ``roots`` (the operator's ``docs_roots``). SearchError when one cannot be read."""
    return Catalog([_library(path, roots, hidden) for path in dict.fromkeys(paths)])


def _library(raw: str, roots: Sequence[str], hidden: bool) -> Library:
    path = os.path.abspath(os.path.expanduser(raw))
    name = os.path.basename(path)
    try:
        info = os.stat(path)
    except OSError:
        raise SearchError(
            f"Your reference library {raw} does not exist — check --library (PONDER_LIBRARY)."
        ) from None
    if not os.path.isfile(path):
        raise SearchError(f"Your reference library {raw} is not a file — {_FIX}.")
    parsed = _parsed(path, (info.st_mtime_ns, info.st_size))
    if parsed.problem is not None:
        raise SearchError(f"Cannot read your reference library {raw}: {parsed.problem} — {_FIX}.")
    folder = os.path.dirname(path)
    located = locate(parsed.entries, folder, [os.path.abspath(r) for r in roots], hidden)
    warnings = []
    if parsed.failures:
        warnings.append(_failures_line(name, parsed.failures))
    if parsed.beyond:
        warnings.append(
            f"{name}: only its first {MAX_ENTRIES} entries are read; {parsed.beyond} more "
            "are left out."
        )
    warnings += located.warnings(name, folder)
    return Library(path, len(parsed.entries), located, warnings)


def _failures_line(name: str, failures: list[str]) -> str:
    """One warning for the entries of library ``name`` that could not be read."""
    shown = "; ".join(failures[:_SHOWN])
    more = len(failures) - _SHOWN
    rest = f"; …and {more} more" if more > 0 else ""
    count = "1 entry" if len(failures) == 1 else f"{len(failures)} entries"
    return (
        f"{name}: {count} could not be read, left out: {shown}{rest} — fix them in your "
        "reference manager and export the library again."
    )


def _parsed(path: str, signature: tuple[int, int]) -> Parsed:
    from ponder.services.text import sandbox

    key = (os.path.realpath(path), *signature)
    with _PARSED_LOCK:
        if key in _PARSED:
            return _PARSED[key]
    try:
        parsed = sandbox.run(parse_file, path, deadline=PARSE_SECONDS)
    except sandbox.ParseFailed as exc:
        parsed = Parsed(problem=str(exc).replace("a page may use", "a library may use"))
    with _PARSED_LOCK:
        while len(_PARSED) >= _KEPT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = parsed
    return parsed
