"""Plain text and reStructuredText: read as they are; an underlined first heading of a
.rst file is its title."""

from __future__ import annotations

import itertools

from ponder.services.search.backends.local.formats.document import Document
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.text import decoded

_UNDERLINES = set("=-#*~^")


def read_text(data: bytes, name: str) -> Document:
    return Document(name, decoded(data))


def read_rst(data: bytes, name: str) -> Document:
    text = decoded(data)
    return Document(_rst_title(text) or name, text)


def _rst_title(text: str) -> str | None:
    lines = text.lstrip().splitlines()[:40]
    for line, underline in itertools.pairwise(lines):
        mark = underline.strip()
        if line.strip() and mark and len(set(mark)) == 1 and mark[0] in _UNDERLINES:
            return line.strip()
    return None


register(
    Reader(
        "Plain text",
        (".txt",),
        read_text,
        library="none needed (UTF-8)",
        keeps="the whole text",
        drops="nothing; the title is the file's name",
    )
)
register(
    Reader(
        "reStructuredText",
        (".rst",),
        read_rst,
        library="none needed (UTF-8)",
        keeps="the whole text, markup included; the first underlined heading as the title",
        drops="nothing",
    )
)
