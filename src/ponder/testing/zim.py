"""Kiwix ZIM archives written at run time from the Python docs' pages, for tests and benches.

libzim writes them as Kiwix's own tools (zimwriterfs, mwoffliner) do: each page an HTML
article with its title, a title index always, and a full-text (Xapian) index unless
``fulltext`` is off — the two kinds of archive the ZIM backend must search.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from pathlib import Path

from ponder.services.search.backends.zim.writing import write_archive

_TITLE = re.compile(r"<title>(.*?)</title>", re.S | re.I)


def page_title(markup: str, fallback: str) -> str:
    """The page's <title> as text, as Kiwix's scrapers keep it (the site's name and all)."""
    found = _TITLE.search(markup[:20_000])
    return " ".join(html.unescape(found.group(1)).split()) if found else fallback


def write_zim(
    root: Path, pages: Iterable[str], out: Path, *, fulltext: bool = True, title: str = ""
) -> Path:
    """An archive at ``out`` of ``pages`` (paths under ``root``, e.g. library/gzip.html),
    each kept at its own path."""
    metadata = {
        "Title": title or "Python 3.11 documentation",
        "Description": "The Python 3.11 documentation, from Debian's python3.11-doc",
        "Language": "eng",
        "Creator": "Python Software Foundation",
        "Publisher": "ponder's tests",
        "Name": out.stem,
        "Date": "2023-01-01",
    }
    read = ((name, (root / name).read_text(encoding="utf-8", errors="replace")) for name in pages)
    written = ((name, page_title(markup, name), markup) for name, markup in read)
    return write_archive(out, written, fulltext=fulltext, metadata=metadata)
