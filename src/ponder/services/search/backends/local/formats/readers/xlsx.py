"""Excel workbooks (XLSX): every sheet's cells as text, dates as dates, one part per sheet
(a passage is located by its sheet). Title, authors and date from the core properties."""

from __future__ import annotations

import datetime
import io
import re
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
from ponder.services.search.backends.local.formats.ooxml import (
    core_properties,
    main_part,
    relationships,
)
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.sheets import SheetText, column_number

# Built-in number formats that show a date (ECMA-376 part 1, 18.8.30).
_DATE_FORMATS = frozenset((*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)))
_LITERALS = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')


def read_xlsx(data: bytes, name: str) -> Document:
    package = Zipped(data, "XLSX")
    book = main_part(package, "xl/workbook.xml")
    workbook = package.xml(book)
    rels = relationships(package, book)
    shared = _shared_strings(package, rels)
    dates = _date_styles(package, rels)
    base = _epoch(workbook)
    texts: list[str] = []
    budget = MAX_TEXT_CHARS
    for sheet in (e for e in workbook.iter() if local(e.tag) == "sheet"):
        rid = next((v for k, v in sheet.attrib.items() if local(k) == "id" and k != "id"), "")
        kind, target = rels.get(rid, ("", ""))
        if kind != "worksheet" or not package.has(target) or budget <= 0:
            continue
        text = SheetText(sheet.get("name") or "", budget)
        _read_sheet(package.read(target), target, text, shared, dates, base)
        texts.append(text.text())
        budget -= text.size
    body, starts = joined(texts)
    if not body.strip():
        raise SkipFile("the XLSX has no cells with values")
    title, authors, date = core_properties(package)
    return Document(title or name, body, starts, "sheet", authors, date)


def _read_sheet(
    data: bytes, where: str, out: SheetText, shared: list[str], dates: set[int], base: datetime.date
) -> None:
    """Stream a worksheet's rows (its XML may be tens of MB): each row is written, then freed."""
    try:
        for _event, element in iterparse(
            io.BytesIO(data), forbid_entities=True, forbid_external=True
        ):
            if local(element.tag) != "row":
                continue
            row: dict[int, str] = {}
            column = -1
            for cell in element:
                if local(cell.tag) == "c":  # "r" is optional: a cell without it is the next
                    column = column_number(cell.get("r") or "") if cell.get("r") else column + 1
                    row[column] = _value(cell, shared, dates, base)
            out.add(row)
            element.clear()
            if out.full:
                return
    except (DefusedXmlException, ParseError) as exc:
        raise refused(exc, where) from None


def _value(cell: Element, shared: list[str], dates: set[int], base: datetime.date) -> str:
    kind = cell.get("t") or "n"
    raw = ""
    for part in cell:
        name = local(part.tag)
        if name == "v":
            raw = part.text or ""
        elif name == "is":
            raw = "".join(t.text or "" for t in part.iter() if local(t.tag) == "t")
    if kind == "s":
        index = number(raw, -1)
        return shared[index] if 0 <= index < len(shared) else ""
    if kind == "b":
        return "TRUE" if raw == "1" else "FALSE"
    if kind == "n" and raw and number(cell.get("s"), 0) in dates:
        return _as_date(raw, base)
    return raw


def _as_date(serial: str, base: datetime.date) -> str:
    try:
        days = float(serial)
        moment = datetime.datetime.combine(base, datetime.time()) + datetime.timedelta(days=days)
    except (ValueError, OverflowError):
        return serial
    return moment.date().isoformat() if days == int(days) else moment.isoformat(timespec="minutes")


def _epoch(workbook: Element) -> datetime.date:
    """Day 0 of the workbook's serial dates (the 1900 system, counted as Excel does)."""
    for element in workbook.iter():
        if local(element.tag) == "workbookPr" and element.get("date1904") in ("1", "true"):
            return datetime.date(1904, 1, 1)
    return datetime.date(1899, 12, 30)


def _shared_strings(package: Zipped, rels: dict[str, tuple[str, str]]) -> list[str]:
    target = next((t for k, t in rels.values() if k == "sharedStrings" and package.has(t)), "")
    if not target:
        return []
    strings = []
    for item in package.xml(target):
        if local(item.tag) == "si":  # phonetic guides (rPh) are not the text
            strings.append("".join(t.text or "" for t in _text_runs(item)))
    return strings


def _text_runs(item: Element) -> list[Element]:
    runs = [item] + [r for r in item if local(r.tag) == "r"]
    return [t for run in runs for t in run if local(t.tag) == "t"]


def _date_styles(package: Zipped, rels: dict[str, tuple[str, str]]) -> set[int]:
    """The cell styles (their index) whose number format shows a date."""
    target = next((t for k, t in rels.values() if k == "styles" and package.has(t)), "")
    if not target:
        return set()
    styles = package.xml(target)
    custom = {
        number(f.get("numFmtId"), -1): f.get("formatCode") or ""
        for f in styles.iter()
        if local(f.tag) == "numFmt"
    }
    dated = {n for n, code in custom.items() if re.search(r"[dy]", _LITERALS.sub("", code).lower())}
    found: set[int] = set()
    for group in styles.iter():
        if local(group.tag) == "cellXfs":
            for index, style in enumerate(x for x in group if local(x.tag) == "xf"):
                fmt = number(style.get("numFmtId"), 0)
                if fmt in _DATE_FORMATS or fmt in dated:
                    found.add(index)
    return found


register(
    Reader(
        "Excel (XLSX)",
        (".xlsx", ".xlsm"),
        read_xlsx,
        library="ponder's own reader of the documented format (ECMA-376), streaming each "
        "sheet's rows under the container limits; openpyxl builds every cell as an object",
        keeps="every sheet's values (shared strings, numbers, booleans, dates as dates), a "
        "row per line, `label: value` under a header row; passages located by sheet",
        drops="formulas (their last computed value is kept), formatting, charts, comments",
    )
)
