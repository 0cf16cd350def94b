"""EPUB books (2 and 3): the chapters in reading order (the spine), each an XHTML page read
as HTML files are; a passage is located by its chapter. Title, authors and date from the
package's Dublin Core metadata."""

from __future__ import annotations

from ponder.services.search.backends.local.formats.container import Zipped, member_path
from ponder.services.search.backends.local.formats.document import (
    MAX_TEXT_CHARS,
    Document,
    SkipFile,
    clean_title,
    joined,
)
from ponder.services.search.backends.local.formats.markup import iso_date, local
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.text.extraction import page_text

MAX_CHAPTERS = 2_000
_PAGES = ("application/xhtml+xml", "text/html", "application/x-dtbook+xml")


def read_epub(data: bytes, name: str) -> Document:
    book = Zipped(data, "EPUB")
    opf = _package_document(book)
    package = book.xml(opf)
    manifest: dict[str, tuple[str, str]] = {}
    spine: list[str] = []
    meta: dict[str, list[str]] = {}
    for element in package.iter():
        kind = local(element.tag)
        if kind == "item":
            href = member_path(opf, element.get("href") or "")
            manifest[element.get("id") or ""] = (href, element.get("media-type") or "")
        elif kind == "itemref" and element.get("linear") != "no":
            spine.append(element.get("idref") or "")
        elif kind in ("title", "creator", "date"):
            meta.setdefault(kind, []).append(" ".join("".join(element.itertext()).split()))
    chapters: list[str] = []
    size = 0
    for idref in spine[:MAX_CHAPTERS]:
        href, media = manifest.get(idref, ("", ""))
        if media in _PAGES and book.has(href) and size < MAX_TEXT_CHARS:
            chapters.append(page_text(book.text(href)))
            size += len(chapters[-1])
    text, starts = joined(chapters)
    if not text.strip():
        raise SkipFile("the EPUB has no text in its chapters")
    title = clean_title((meta.get("title") or [""])[0])
    authors = [a for a in (clean_title(c) for c in meta.get("creator", [])[:20]) if a]
    date = iso_date((meta.get("date") or [""])[0])
    return Document(title or name, text, starts, "chapter", authors, date)


def _package_document(book: Zipped) -> str:
    """The package document (.opf) that META-INF/container.xml points to."""
    for element in book.xml("META-INF/container.xml").iter():
        if local(element.tag) == "rootfile":
            path = member_path("/", element.get("full-path") or "")
            if book.has(path):
                return path
    raise SkipFile("not a readable EPUB file (its container names no package document)")


register(
    Reader(
        "EPUB",
        (".epub",),
        read_epub,
        library="ponder's own reader of the documented format (EPUB 3, which reads EPUB 2 "
        "too), under the container limits; each chapter through lexbor as HTML. ebooklib "
        "is AGPL-licensed",
        keeps="the chapters' text in reading order (passages located by chapter); title, "
        "authors and date from its metadata",
        drops="images, styles, the table of contents, chapters marked non-linear",
    )
)
