"""OpenDocument text (ODT, LibreOffice's and pandoc's): headings, paragraphs, lists and
tables in order, then the notes; title, author and date from its metadata."""

from __future__ import annotations

from collections.abc import Iterator
from xml.etree.ElementTree import Element

from ponder.services.search.backends.local.formats.container import Zipped
from ponder.services.search.backends.local.formats.document import Document, SkipFile, paragraphs
from ponder.services.search.backends.local.formats.markup import local, table_rows
from ponder.services.search.backends.local.formats.odf import inline_text, metadata, notes
from ponder.services.search.backends.local.formats.registry import Reader, register

# Elements that only hold blocks; anything not named here or below is not read.
_HOLDERS = frozenset(
    ("body", "text", "section", "list", "list-item", "list-header", "deletion-free", "span")
)
# Generated indexes repeat the headings they list.
_GENERATED = ("table-of-content", "illustration-index", "alphabetical-index", "bibliography")


def read_odt(data: bytes, name: str) -> Document:
    package = Zipped(data, "ODT")
    content = package.xml("content.xml")
    blocks: list[str] = []
    first_heading = ""
    for kind, text in _blocks(content):
        blocks.append(text)
        if kind == "h" and not first_heading:
            first_heading = text.strip()
    blocks += list(notes(content))
    text = paragraphs(blocks)
    if not text:
        raise SkipFile("the ODT has no text")
    title, authors, date = metadata(package)
    return Document((title or first_heading or name)[:300], text, authors=authors, date=date)


def _blocks(root: Element) -> Iterator[tuple[str, str]]:
    stack = list(reversed(list(root)))
    while stack:
        element = stack.pop()
        kind = local(element.tag)
        if kind in ("p", "h"):
            yield kind, inline_text(element)
        elif kind == "table":
            rows = table_rows(element, "table-row", "table-cell", ("p", "h"), inline_text)
            yield from (("row", row) for row in rows)
        elif kind in _HOLDERS:
            stack.extend(reversed(list(element)))
        # generated indexes (_GENERATED), forms, sequence declarations: not the text


register(
    Reader(
        "OpenDocument text (ODT)",
        (".odt",),
        read_odt,
        library="ponder's own reader of the documented format (ISO/IEC 26300), under the "
        "container limits; odfpy parses with SAX and no limits of its own",
        keeps="headings, paragraphs, lists and tables (rows as `cell | cell`) in order, then "
        "footnotes and endnotes; title, author and date from its metadata",
        drops="images, frames' layout, generated indexes (a table of contents repeats the "
        "headings), annotations and deleted changes",
    )
)
