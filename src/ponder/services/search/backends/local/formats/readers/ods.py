"""OpenDocument spreadsheets (ODS): every sheet's cells as text, one part per sheet;
title, author and date from its metadata."""

from __future__ import annotations

import io
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from ponder.services.search.backends.local.formats.container import Zipped
from ponder.services.search.backends.local.formats.document import (
    MAX_TEXT_CHARS,
    Document,
    SkipFile,
    joined,
)
from ponder.services.search.backends.local.formats.markup import local, number, refused
from ponder.services.search.backends.local.formats.odf import attribute, inline_text, metadata
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.sheets import MAX_COLUMNS, SheetText

# A repeated cell is written out this many times at most: ODS repeats empty cells to the
# sheet's edge (16,384 columns), and a hostile file repeats a full one as often.
MAX_REPEATS = 64
_VALUE = {"date": "date-value", "time": "time-value", "boolean": "boolean-value"}


def read_ods(data: bytes, name: str) -> Document:
    package = Zipped(data, "ODS")
    sheets = _sheets(package.read("content.xml"))
    body, starts = joined([sheet.text() for sheet in sheets])
    if not body.strip():
        raise SkipFile("the ODS has no cells with values")
    title, authors, date = metadata(package)
    return Document(title or name, body, starts, "sheet", authors, date)


def _sheets(data: bytes) -> list[SheetText]:
    """Each sheet's rows, streamed (each row written, then freed)."""
    sheets: list[SheetText] = []
    budget = MAX_TEXT_CHARS
    try:
        for event, element in iterparse(
            io.BytesIO(data), events=("start", "end"), forbid_entities=True, forbid_external=True
        ):
            kind = local(element.tag)
            if event == "start" and kind == "table":
                if sheets:
                    budget -= sheets[-1].size
                sheets.append(SheetText(attribute(element, "name") or "", budget))
            elif event == "end" and kind == "table-row" and sheets:
                sheets[-1].add(_row(element))
                element.clear()
                if budget - sheets[-1].size <= 0:
                    break
    except (DefusedXmlException, ParseError) as exc:
        raise refused(exc, "content.xml") from None
    return sheets


def _row(row: Element) -> dict[int, str]:
    cells: dict[int, str] = {}
    column = 0
    for cell in row:
        if local(cell.tag) not in ("table-cell", "covered-table-cell"):
            continue
        count = max(number(attribute(cell, "number-columns-repeated"), 1), 1)
        value = _value(cell)
        if value:
            for offset in range(min(count, MAX_REPEATS)):
                cells[column + offset] = value
        column += count
        if column >= MAX_COLUMNS:
            break
    return cells


def _value(cell: Element) -> str:
    """The cell as shown (its paragraphs), else its typed value."""
    shown = "\n".join(inline_text(p) for p in cell if local(p.tag) == "p")
    if shown.strip():
        return shown
    kind = attribute(cell, "value-type") or ""
    return attribute(cell, _VALUE.get(kind, "value")) or ""


register(
    Reader(
        "OpenDocument spreadsheet (ODS)",
        (".ods",),
        read_ods,
        library="ponder's own reader of the documented format (ISO/IEC 26300), streaming rows "
        "under the container limits, repeated cells capped",
        keeps="every sheet's cells as shown, a row per line, `label: value` under a header "
        "row; passages located by sheet; title, author and date from its metadata",
        drops="formulas (the shown value is kept), formatting, charts, a row's repeats",
    )
)
