"""Exported reports read back as their readers read them: a PDF's text, links and fonts
through pdfium, a DOCX through python-docx, an ODT through odfpy and its XML, a BibTeX
file through bibtexparser."""

from __future__ import annotations

import ctypes
import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

import defusedxml.ElementTree as SafeXML


def flat(text: str) -> str:
    """``text`` without whitespace or zero-width spaces: a line broken anywhere still
    matches (a URL across two lines of a PDF)."""
    return re.sub(r"[\s\u200b]+", "", text)


@dataclass
class Pdf:
    pages: int
    text: str
    uris: list[str] = field(default_factory=list)
    internal_links: int = 0
    fonts: dict[str, set[str]] = field(default_factory=dict)  # char → fonts it is set in
    title: str = ""


def read_pdf(data: bytes) -> Pdf:
    import pypdfium2
    import pypdfium2.raw as raw

    document = pypdfium2.PdfDocument(data)
    found = Pdf(pages=len(document), text="", title=document.get_metadata_dict().get("Title", ""))
    texts = []
    name = ctypes.create_string_buffer(256)
    for index in range(len(document)):
        page = document[index]
        textpage = page.get_textpage()
        texts.append(textpage.get_text_range())
        for at in range(raw.FPDFText_CountChars(textpage.raw)):
            char = chr(raw.FPDFText_GetUnicode(textpage.raw, at))
            flags = ctypes.c_int()
            raw.FPDFText_GetFontInfo(textpage.raw, at, name, 256, ctypes.byref(flags))
            font = name.value.decode(errors="replace").split("+")[-1]
            found.fonts.setdefault(char, set()).add(font)
        position, link = ctypes.c_int(0), raw.FPDF_LINK()
        while raw.FPDFLink_Enumerate(page.raw, ctypes.byref(position), ctypes.byref(link)):
            action = raw.FPDFLink_GetAction(link)
            if action and raw.FPDFAction_GetType(action) == raw.PDFACTION_URI:
                size = raw.FPDFAction_GetURIPath(document.raw, action, None, 0)
                buffer = ctypes.create_string_buffer(size)
                raw.FPDFAction_GetURIPath(document.raw, action, buffer, size)
                found.uris.append(buffer.value.decode())
            elif raw.FPDFLink_GetDest(document.raw, link):
                found.internal_links += 1
    found.text = "\n".join(texts)
    return found


@dataclass
class Docx:
    text: str  # every paragraph, tables' cells included
    links: list[str]  # external addresses
    anchors: list[str]  # bookmarks the internal links lead to
    bookmarks: list[str]
    tables: list[Any]
    headings: list[tuple[str, str]]  # (style, text)


def read_docx(data: bytes) -> Docx:
    import docx
    from docx.oxml.ns import qn

    word = docx.Document(io.BytesIO(data))
    paragraphs = list(word.paragraphs)
    for table in word.tables:
        for row in table.rows:
            for cell in row.cells:
                paragraphs += cell.paragraphs
    body = word.element.body
    anchor = qn("w:anchor")
    return Docx(
        text="\n".join(p.text for p in paragraphs),
        links=[link.address for p in paragraphs for link in p.hyperlinks if link.address],
        anchors=[e.get(anchor) for e in body.iter(qn("w:hyperlink")) if e.get(anchor)],
        bookmarks=[e.get(qn("w:name")) for e in body.iter(qn("w:bookmarkStart"))],
        tables=list(word.tables),
        headings=[
            (p.style.name, p.text) for p in word.paragraphs if p.style.name.startswith("Heading")
        ],
    )


TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
XLINK = "http://www.w3.org/1999/xlink"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"


@dataclass
class Odt:
    text: str
    links: list[str]
    bookmarks: list[str]
    headings: list[tuple[int, str]]
    table_rows: list[int]  # rows of each table


def read_odt(data: bytes) -> Odt:
    """The document as odfpy loads it, and its content.xml parsed (entities refused)."""
    from odf import teletype
    from odf.opendocument import load
    from odf.text import H, P

    loaded = load(io.BytesIO(data))
    paragraphs = loaded.getElementsByType(P) + loaded.getElementsByType(H)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.read("mimetype") == b"application/vnd.oasis.opendocument.text"
        content = SafeXML.fromstring(archive.read("content.xml"))
    return Odt(
        text="\n".join(teletype.extractText(p) for p in paragraphs),
        links=[a.get(f"{{{XLINK}}}href") for a in content.iter(f"{{{TEXT}}}a")],
        bookmarks=[b.get(f"{{{TEXT}}}name") for b in content.iter(f"{{{TEXT}}}bookmark")],
        headings=[
            (int(h.get(f"{{{TEXT}}}outline-level")), "".join(h.itertext()))
            for h in content.iter(f"{{{TEXT}}}h")
        ],
        table_rows=[
            len(list(t.iter(f"{{{TABLE}}}table-row"))) for t in content.iter(f"{{{TABLE}}}table")
        ],
    )


def read_bibtex(data: bytes) -> Any:
    """The library as bibtexparser 2 reads it, its LaTeX decoded (as ponder reads a
    reference library): no block may have failed to parse."""
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    library = bibtexparser.parse_string(
        data.decode("utf-8"), append_middleware=[LatexDecodingMiddleware(keep_math_mode=False)]
    )
    assert not library.failed_blocks, [block.error for block in library.failed_blocks]
    return library


def read_ris(data: bytes) -> list[list[tuple[str, str]]]:
    """RIS records as (tag, value) pairs; every line a ``XX  - value`` tag line."""
    records: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    for line in data.decode("utf-8").split("\r\n"):
        if not line:
            continue
        match = re.fullmatch(r"([A-Z][A-Z0-9])  - (.*)", line)
        assert match, f"not a RIS tag line: {line!r}"
        tag, value = match.groups()
        current.append((tag, value))
        if tag == "ER":
            records.append(current)
            current = []
    assert not current, "a record without ER"
    return records
