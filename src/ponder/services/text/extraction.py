"""The text of an HTML page or a PDF, for the web reader and the local index alike.

HTML goes through trafilatura: in published main-content extraction benchmarks it is at or
near the top, it is pure Python on lxml (no browser), and it also handles boilerplate
such as menus and footers that would waste a small model's context. When it finds nothing
(tiny or odd pages) a crude tag strip keeps whatever text there is. PDFs go through pdfium.
"""

from __future__ import annotations

import html
import re
from typing import Any


def strip_tags(markup: str) -> str:
    """A crude HTML-to-text fallback: drop scripts, styles and tags, keep paragraphs."""
    text = re.sub(r"(?is)<(script|style|noscript|template)\b.*?</\1\s*>", " ", markup)
    text = re.sub(r"(?is)<!--.*?-->", " ", text)
    text = re.sub(r"(?i)</?(p|div|br|li|h[1-6]|tr|section|article)\b[^>]*>", "\n\n", text)
    text = html.unescape(re.sub(r"(?s)<[^>]+>", " ", text))
    paragraphs = (" ".join(part.split()) for part in re.split(r"\n\s*\n", text))
    return "\n\n".join(p for p in paragraphs if p)


def html_title(markup: str) -> str | None:
    match = re.search(r"(?is)<title[^>]*>(.*?)</title>", markup)
    title = " ".join(html.unescape(match.group(1)).split()) if match else ""
    return title or None


def html_to_text(markup: str) -> str:
    """Main text of an HTML page (trafilatura, falling back to a tag strip)."""
    text = ""
    try:
        import trafilatura

        text = trafilatura.extract(markup, include_comments=False, include_tables=True) or ""
    except Exception:  # a third-party parser on hostile input: any failure means fallback
        text = ""
    return text.strip() or strip_tags(markup)


def pdf_pages(data: bytes) -> list[str]:
    """Text of each page of a PDF. Raises ValueError for a corrupt or encrypted file.

    pdfium (the PDF engine of Chromium) reads pages about four times faster than pypdf did here
    (see the README's indexing figures), and is hardened against hostile files.
    """
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = str(exc)
        if "password" in reason.lower():
            raise ValueError("the PDF is encrypted") from None
        raise ValueError(f"unreadable PDF ({reason})") from None
    try:
        return [_page_text(document, number) for number in range(len(document))]
    except pdfium.PdfiumError as exc:
        raise ValueError(f"unreadable PDF ({exc})") from None
    finally:
        document.close()


def _page_text(document: Any, number: int) -> str:
    page = document[number]
    try:
        text_page = page.get_textpage()
        try:
            text: str = text_page.get_text_range()
        finally:
            text_page.close()
    finally:
        page.close()
    # pdfium ends lines with \r\n and marks soft hyphens; plain newlines for passages.
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "").strip()
