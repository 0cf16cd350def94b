"""The text of an HTML page or a PDF, for the web reader and the local index alike.

HTML from the web goes through trafilatura: in published main-content extraction
benchmarks it is at or near the top, it is pure Python on lxml (no browser), and it also
handles boilerplate such as menus and footers that would waste a small model's context.
Your own HTML files, and web pages where trafilatura finds nothing, go through lexbor's
parser instead (``page_text``). PDFs go through pdfium.

Every step is linear in the page: no backtracking regular expression ever sees a whole
page (a lazy ``<title>(.*?)</title>`` over unclosed tags is quadratic). Callers run these
functions on untrusted bytes in a worker process (:mod:`.sandbox`), which a deadline can
stop.
"""

from __future__ import annotations

import html
import re
from typing import Any

TITLE_CHARS = 300  # a title longer than this is not a title
HEAD_CHARS = 100_000  # where a page's <title> is looked for
PDF_PAGES = 2_000  # pages read from one PDF; a book's worth, not a bomb's
PDF_CHARS = 5_000_000  # text kept from one PDF


def html_title(markup: str) -> str | None:
    """The page's <title>, whitespace collapsed, or None.

    Found by plain string search in the head, not by parsing the page: a parser's time
    grows with how deep elements nest, and a hostile page nests them a hundred thousand
    deep (lexbor takes 16 s on it).
    """
    head = markup[:HEAD_CHARS]
    lower = head.lower()
    start = lower.find("<title")
    opened = lower.find(">", start) + 1 if start >= 0 else 0
    if not opened:
        return None
    closed = lower.find("</title", opened)
    raw = head[opened : closed if closed >= 0 else opened + 4 * TITLE_CHARS]
    title = " ".join(html.unescape(raw[: 4 * TITLE_CHARS]).split())
    return title[:TITLE_CHARS] or None


def html_to_text(markup: str) -> str:
    """Main text of a web page (trafilatura, falling back to ``page_text``)."""
    text = ""
    try:
        import trafilatura

        text = trafilatura.extract(markup, include_comments=False, include_tables=True) or ""
    except Exception:  # a third-party parser on hostile input: any failure means fallback
        text = ""
    return text.strip() or page_text(markup)


def strip_tags(markup: str) -> str:
    """The text of an HTML fragment (a search engine's snippet), in paragraphs."""
    return page_text(markup)


# Page furniture, not content: dropped with everything inside.
_FURNITURE = (
    "head, script, style, noscript, template, svg, nav, aside, form, button, body > header,"
    " body > footer, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]"
)
# Elements that start a paragraph; inline ones (a, code, em…) run on, <br> breaks a line.
# fmt: off
_BLOCKS = frozenset((
    "address", "article", "blockquote", "dd", "details", "div", "dl", "dt", "figcaption",
    "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "ol", "p", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
))
# fmt: on


def page_text(markup: str) -> str:
    """The text of an HTML page, in paragraphs, without scripts or navigation.

    Your own files are not messy web pages: a fast HTML parser (lexbor) that drops page
    furniture keeps what matters, about 30 times faster than trafilatura's main-text
    extraction, which the web reader uses first (docs/benchmarks.md, indexing).
    """
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(markup)
    for node in tree.css(_FURNITURE):
        node.decompose()
    # Code keeps its lines and indentation: set aside, put back after spaces are collapsed.
    code: dict[str, str] = {}
    for number, node in enumerate(tree.css("pre")):
        code[f"\x00{number}\x00"] = "\n".join(
            line.rstrip() for line in node.text(deep=True).strip("\n").splitlines()
        )
        node.replace_with(f"\x00{number}\x00")
    root = tree.body or tree.root
    if root is None:
        return ""
    pieces: list[str] = []
    for node in root.traverse(include_text=True):
        if node.tag == "-text":
            pieces.append(node.text_content or "")
        elif node.tag in _BLOCKS:
            pieces.append("\n\n")
        elif node.tag == "br":
            pieces.append("\n")
    text = "".join(pieces)
    for marker in code:  # its own paragraph, whatever surrounded it
        text = text.replace(marker, f"\n\n{marker}\n\n")
    paragraphs = (
        "\n".join(" ".join(line.split()) for line in block.splitlines() if line.strip())
        for block in re.split(r"\n\s*\n", text)
    )
    return "\n\n".join(code.get(p, p) for p in paragraphs if p)


def pdf_pages(data: bytes, max_pages: int = PDF_PAGES, max_chars: int = PDF_CHARS) -> list[str]:
    """Text of each page of a PDF, up to ``max_pages`` pages and ``max_chars`` characters.
    Raises ValueError for a corrupt or encrypted file.

    pdfium (the PDF engine of Chromium) reads pages about four times faster than pypdf did here
    (docs/benchmarks.md, indexing), and is hardened against hostile files.
    """
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = str(exc)
        if "password" in reason.lower():
            raise ValueError("the PDF is encrypted") from None
        raise ValueError(f"unreadable PDF ({reason})") from None
    pages: list[str] = []
    kept = 0
    try:
        for number in range(min(len(document), max_pages)):
            text = _page_text(document, number)
            pages.append(text[: max_chars - kept])
            kept += len(pages[-1])
            if kept >= max_chars:
                break
        return pages
    except pdfium.PdfiumError as exc:
        raise ValueError(f"unreadable PDF ({exc})") from None
    finally:
        document.close()


def pdf_metadata(data: bytes) -> dict[str, str]:
    """The PDF's document information (Title, Author, CreationDate…); {} when unreadable."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return {}
    try:
        return {k: v for k, v in document.get_metadata_dict().items() if isinstance(v, str)}
    except pdfium.PdfiumError:
        return {}
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
