"""Spreadsheets as text (XLSX and ODS): one block per sheet, a row per line.

A sheet whose first row is all labels is a table with a header: each later row is written
as ``label: value; label: value``, so a row found by a search, or quoted in a report, still
says what each number is. Other sheets are rows of ``value | value``.
"""

from __future__ import annotations

from ponder.services.search.backends.local.formats.document import MAX_TEXT_CHARS

MAX_COLUMNS = 1_024  # a row's cells kept; sheets wider than this are data dumps
Row = dict[int, str]  # column number → the cell's text


class SheetText:
    """One sheet's rows, written as they come (a sheet can hold a million rows: none is
    kept once written, and writing stops at the text limit)."""

    def __init__(self, name: str, budget: int = MAX_TEXT_CHARS) -> None:
        self.lines = [f"Sheet: {name}"] if name else []
        self.header: Row | None = None
        self.rows = 0
        self.size = sum(len(line) for line in self.lines)
        self.budget = budget

    @property
    def full(self) -> bool:
        return self.size >= self.budget

    def add(self, row: Row) -> None:
        cells = {c: " ".join(v.split()) for c, v in row.items() if c < MAX_COLUMNS and v.strip()}
        if not cells or self.full:
            return
        self.rows += 1
        if self.rows == 1 and len(cells) > 1 and all(_label(v) for v in cells.values()):
            self.header = cells
        if self.header is not None and self.rows > 1:
            line = "; ".join(
                f"{self.header.get(c, _column(c))}: {v}" for c, v in sorted(cells.items())
            )
        else:
            line = " | ".join(v for _, v in sorted(cells.items()))
        self.lines.append(line)
        self.size += len(line) + 1

    def text(self) -> str:
        return "\n".join(self.lines) if self.rows else ""


def column_number(reference: str) -> int:
    """``C7`` → 2 (columns count from 0)."""
    number = 0
    for char in reference:
        if not char.isalpha():
            break
        number = number * 26 + (ord(char.upper()) - ord("A") + 1)
    return number - 1


def _column(number: int) -> str:
    name = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def _label(value: str) -> bool:
    text = value.replace(",", "").replace(".", "").replace("-", "").replace("%", "").strip()
    return bool(text) and not text.isdigit()
