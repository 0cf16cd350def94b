"""HTML files, through lexbor's parser (selectolax): the page's text in paragraphs, without
scripts, styles, navigation, banners and footers; its <title> as the title."""

from __future__ import annotations

from ponder.services.search.backends.local.formats.document import Document
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.text import decoded
from ponder.services.text.extraction import html_title, page_text


def read_html(data: bytes, name: str) -> Document:
    markup = decoded(data, declared=True)
    return Document(html_title(markup) or name, page_text(markup))


register(
    Reader(
        "HTML",
        (".html", ".htm", ".xhtml"),
        read_html,
        library="selectolax (lexbor's parser, MIT): many times faster than trafilatura on "
        "your own pages, and it keeps more of their text",
        keeps="paragraphs, lists, tables and code (with its lines); the `<title>`",
        drops="scripts, styles, navigation, banners, footers, forms and hidden elements",
    )
)
