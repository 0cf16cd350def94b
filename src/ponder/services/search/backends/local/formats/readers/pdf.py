"""PDF, through pdfium (the PDF engine of Chromium): the text of each page, and the title,
author and date of the document's information dictionary."""

from __future__ import annotations

import re

from ponder.services.search.backends.local.formats.document import Document, SkipFile, clean_title
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.text.extraction import pdf_metadata, pdf_pages

# A title a writer filled in for the user, not the user's title: "Microsoft Word -
# draft3.docx", "report.pdf".
_NO_TITLE = re.compile(r"^microsoft \w+ - |\.(docx?|pdf|tex|odt|pptx?|dvi)$", re.IGNORECASE)


def read_pdf(data: bytes, name: str) -> Document:
    try:
        pages = pdf_pages(data)
    except ValueError as exc:
        raise SkipFile(str(exc)) from None
    starts, parts, offset = [], [], 0
    for page in pages:
        starts.append(offset)
        parts.append(page)
        offset += len(page) + 2
    text = "\n\n".join(parts)
    if not text.strip():
        raise SkipFile("the PDF has no extractable text (scanned images?)")
    meta = pdf_metadata(data)
    title = clean_title(meta.get("Title"))
    if _NO_TITLE.search(title):
        title = ""
    authors = [a for a in re.split(r"\s*;\s*", clean_title(meta.get("Author"))) if a]
    return Document(title or name, text, starts, authors=authors, date=_pdf_date(meta))


def _pdf_date(meta: dict[str, str]) -> str | None:
    """``D:20210304…`` → ``2021-03-04`` (PDF's own date format)."""
    found = re.match(r"D:(\d{4})(\d{2})?(\d{2})?", meta.get("CreationDate") or "")
    if not found:
        return None
    return "-".join(part for part in found.groups() if part)


register(
    Reader(
        "PDF",
        (".pdf",),
        read_pdf,
        library="pypdfium2 (pdfium, the PDF engine of Chromium; BSD/Apache): several times "
        "faster than pypdf, and hardened against hostile files",
        keeps="each page's text (a passage is located by its page); title, author and "
        "creation date from the document information",
        drops="images (a scanned PDF has no text to read), layout and annotations",
    )
)
