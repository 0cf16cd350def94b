"""Jupyter notebooks (.ipynb, nbformat 3 and 4): Markdown cells, code cells with their
source, and the text their outputs show; title and authors from the notebook's metadata,
else its first heading."""

from __future__ import annotations

import json
import re
from typing import Any

from ponder.services.search.backends.local.formats.document import (
    MAX_TEXT_CHARS,
    Document,
    SkipFile,
    clean_title,
    paragraphs,
)
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.text import decoded, heading_title

MAX_OUTPUT_CHARS = 20_000  # of one output: a printed table, not a megabyte of log
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # a traceback's colours


def read_notebook(data: bytes, name: str) -> Document:
    try:
        notebook = json.loads(decoded(data))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SkipFile(f"not a readable notebook ({type(exc).__name__})") from None
    if not isinstance(notebook, dict):
        raise SkipFile("not a readable notebook (no cells)")
    blocks: list[str] = []
    size = 0
    for cell in _cells(notebook):
        for block in _cell_blocks(cell):
            blocks.append(block)
            size += len(block)
        if size > MAX_TEXT_CHARS:
            break
    text = paragraphs(blocks)
    if not text:
        raise SkipFile("the notebook has no text")
    found = notebook.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    title = clean_title(meta.get("title")) or _first_heading(_cells(notebook)) or name
    return Document(title, text[:MAX_TEXT_CHARS], authors=_authors(meta.get("authors")))


def _first_heading(cells: list[dict[str, Any]]) -> str:
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            heading = heading_title(_joined(cell.get("source")))
            if heading:
                return clean_title(" ".join(_rendered(heading).split()))
    return ""


def _cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3: cells in worksheets
        sheets = notebook.get("worksheets") or []
        cells = [c for s in sheets if isinstance(s, dict) for c in s.get("cells") or []]
    return [cell for cell in cells if isinstance(cell, dict)] if isinstance(cells, list) else []


def _cell_blocks(cell: dict[str, Any]) -> list[str]:
    source = _joined(cell.get("source", cell.get("input")))
    kind = cell.get("cell_type")
    if kind in ("markdown", "heading"):
        return [_rendered(source)]
    if kind == "raw":
        return [source]
    if kind != "code":
        return []
    return [source, *(_output(o) for o in cell.get("outputs") or [] if isinstance(o, dict))]


def _output(output: dict[str, Any]) -> str:
    """The text an output shows: a stream, a result's text (plain, else Markdown), an error."""
    kind = output.get("output_type")
    if kind == "stream":
        text = _joined(output.get("text"))
    elif kind == "error":
        text = f"{output.get('ename', '')}: {output.get('evalue', '')}"
    else:
        given = output.get("data")
        data: dict[str, Any] = given if isinstance(given, dict) else output
        text = _joined(data.get("text/plain", data.get("text/markdown", data.get("text"))))
    return _ANSI.sub("", text)[:MAX_OUTPUT_CHARS]


def _rendered(markdown: str) -> str:
    """A Markdown cell as the notebook shows it: markup and HTML rendered, links as their
    text (markdown-it-py, which ponder's HTML export uses too)."""
    from markdown_it import MarkdownIt

    from ponder.services.text.extraction import page_text

    return page_text(MarkdownIt("commonmark").render(markdown))


def _joined(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


def _authors(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    names = (item.get("name") if isinstance(item, dict) else item for item in items[:20])
    return [clean_title(n) for n in names if isinstance(n, str) and clean_title(n)]


register(
    Reader(
        "Jupyter notebook",
        (".ipynb",),
        read_notebook,
        library="the standard library's JSON reader (the format is documented JSON; nbformat "
        "would add jsonschema and traitlets to validate what is only read)",
        keeps="Markdown cells, code cells' source, and what their outputs show as text "
        "(streams, plain-text results, errors), each output up to 20,000 characters",
        drops="images and HTML outputs, widgets' state, execution counts",
    )
)
