"""Your documents' formats: one reader module each (the package ``readers``), registered by
suffix (:func:`every_reader` lists them).

:func:`read_document` turns a file's bytes into a :class:`Document` — its text, and the
title, authors and date its own metadata gives — or raises :class:`SkipFile` saying why it
cannot. Containers (DOCX, ODT, EPUB…) are read under hard limits (:mod:`.container`), XML
with entities refused (:mod:`.markup`); the indexer runs every reader in a parsing worker,
within a deadline and a memory ceiling (:mod:`ponder.services.search.backends.local.reading`).
"""

from __future__ import annotations

from ponder.services.search.backends.local.formats.document import (
    MAX_TEXT_CHARS,
    Document,
    SkipFile,
)
from ponder.services.search.backends.local.formats.registry import (
    Reader,
    every_reader,
    reader_for,
    suffixes,
)

__all__ = [
    "MAX_TEXT_CHARS",
    "Document",
    "Reader",
    "SkipFile",
    "every_reader",
    "read_document",
    "reader_for",
    "suffixes",
]


def read_document(suffix: str, data: bytes, name: str) -> Document:
    """The document a file of type ``suffix`` holds (``name``: its title when it names
    none); SkipFile when its type is unknown or it cannot be read."""
    reader = reader_for(suffix)
    if reader is None:
        raise SkipFile(f"unknown type ({suffix or 'no suffix'})")
    document = reader.read(data, name)
    if len(document.text) > MAX_TEXT_CHARS:
        document.text = document.text[:MAX_TEXT_CHARS]
    return document
