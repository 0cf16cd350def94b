"""Word documents (DOCX): the body's paragraphs and tables in order, then the footnotes and
endnotes; title, authors and date from the core properties."""

from __future__ import annotations

from collections.abc import Iterator
from xml.etree.ElementTree import Element

from ponder.services.search.backends.local.formats.container import Zipped
from ponder.services.search.backends.local.formats.document import Document, SkipFile, paragraphs
from ponder.services.search.backends.local.formats.markup import local, table_rows
from ponder.services.search.backends.local.formats.ooxml import core_properties, main_part, related
from ponder.services.search.backends.local.formats.registry import Reader, register

# Elements that only wrap blocks (content controls, tracked insertions, custom XML).
_WRAPPERS = frozenset(("sdt", "sdtContent", "customXml", "ins", "smartTag", "body"))
_RUN_TEXT = {"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-", "softHyphen": ""}


def read_docx(data: bytes, name: str) -> Document:
    package = Zipped(data, "DOCX")
    part = main_part(package, "word/document.xml")
    body = package.xml(part)
    blocks: list[str] = []
    first_heading = styled_title = ""
    for style, text in _blocks(body):
        blocks.append(text)
        if not styled_title and style.lower() == "title":
            styled_title = text.strip()
        elif not first_heading and style.lower().startswith("heading"):
            first_heading = text.strip()
    for kind in ("footnotes", "endnotes"):
        for notes in related(package, part, kind):
            blocks += [text for _, text in _blocks(package.xml(notes)) if text.strip()]
    text = paragraphs(blocks)
    if not text:
        raise SkipFile("the DOCX has no text")
    title, authors, date = core_properties(package)
    title = title or styled_title or first_heading or name
    return Document(title[:300], text, authors=authors, date=date)


def _blocks(root: Element) -> Iterator[tuple[str, str]]:
    """Each paragraph (with its style) and each table row, in document order. Iterative:
    a hostile file nests wrappers as deep as it likes."""
    stack = list(reversed(list(root)))
    while stack:
        element = stack.pop()
        kind = local(element.tag)
        if kind == "p":
            yield _style(element), _paragraph(element)
        elif kind == "tbl":
            yield from (("", row) for row in table_rows(element, "tr", "tc", ("p",), _paragraph))
        elif kind in _WRAPPERS or kind in ("footnote", "endnote"):
            stack.extend(reversed(list(element)))


def _paragraph(paragraph: Element) -> str:
    """A paragraph's visible text: its runs' text, tabs and breaks (not deleted text, field
    codes or tab-stop definitions, which are not runs' text)."""
    parts = []
    for run in paragraph.iter():
        if local(run.tag) != "r":
            continue
        for piece in run:
            kind = local(piece.tag)
            if kind == "t":
                parts.append(piece.text or "")
            elif kind in _RUN_TEXT:
                parts.append(_RUN_TEXT[kind])
    return "".join(parts)


def _style(paragraph: Element) -> str:
    for element in paragraph.iter():
        if local(element.tag) == "pStyle":
            return next((v for k, v in element.attrib.items() if local(k) == "val"), "")
    return ""


register(
    Reader(
        "Word (DOCX)",
        (".docx", ".docm"),
        read_docx,
        library="ponder's own reader of the documented format (ECMA-376): a zip of XML read "
        "under the container limits, with entities refused. python-docx loads every part of "
        "a package, images included, before one can be read, and has no footnotes",
        keeps="paragraphs and tables (rows as `cell | cell`) in order, footnotes and "
        "endnotes; title, authors and date from the core properties, else the Title or "
        "first Heading paragraph",
        drops="images, text boxes' layout, headers and footers, comments, deleted revisions "
        "and field codes",
    )
)
