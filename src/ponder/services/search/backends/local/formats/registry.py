"""What a file-format reader module registers, and the look-ups the indexer makes.

A reader is one module of :mod:`ponder.services.search.backends.local.formats.readers` that calls
``register(Reader(...))`` with the file name suffixes it reads, a ``read(data, name)``
function that returns a :class:`.document.Document` (or raises
:class:`.document.SkipFile` saying why not), and what docs/search.md says of it: which
library reads it, and what it keeps and drops. Nothing else names it.

Readers run in ponder's parsing workers (:mod:`ponder.services.text.sandbox`), each file
within a deadline and a memory ceiling; ``read`` is given the file's bytes, read under the
size limit, never a path.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple

from ponder.services.search.backends.local.formats.document import Document

Read = Callable[[bytes, str], Document]

READERS_PACKAGE = "ponder.services.search.backends.local.formats.readers"


class Reader(NamedTuple):
    name: str  # the format, as people call it: "Word (DOCX)"
    suffixes: tuple[str, ...]  # lower-case, with the dot
    read: Read  # (the file's bytes, its name without suffix) -> Document
    library: str = ""  # what reads it, and why that
    keeps: str = ""
    drops: str = ""


_READERS: dict[str, Reader] = {}


def register(reader: Reader) -> Reader:
    for suffix in reader.suffixes:
        if suffix in _READERS:
            raise ValueError(f"a reader for {suffix} is registered already")
    for suffix in reader.suffixes:
        _READERS[suffix] = reader
    return reader


def unregister(reader: Reader) -> None:
    for suffix in reader.suffixes:
        if _READERS.get(suffix) is reader:
            del _READERS[suffix]


def reader_for(suffix: str) -> Reader | None:
    _load()
    return _READERS.get(suffix.lower())


def every_reader() -> list[Reader]:
    """Every reader once, in the order of its first suffix."""
    _load()
    unique = {id(reader): reader for reader in _READERS.values()}
    return sorted(unique.values(), key=lambda reader: reader.suffixes[0])


def suffixes() -> frozenset[str]:
    _load()
    return frozenset(_READERS)


def _load() -> None:
    importlib.import_module(READERS_PACKAGE)  # at once when it is imported already
