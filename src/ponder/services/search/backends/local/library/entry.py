"""One entry of a reference library, as ponder cites it: who, when, what, where to find it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_FIELD_CHARS = 2000  # of a title or a name: a longer one is cut (a library is no book)
MAX_AUTHORS = 100
MAX_FILES = 20  # attachments of one entry

_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_YEAR = re.compile(r"\b(\d{4})\b")
_ISO = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


@dataclass(frozen=True)
class Entry:
    """An entry: its key (``smith2021``), title, authors ("Given Family"), date (ISO 8601,
    as precise as the entry says: ``2021``, ``2021-03``), DOI, URL, and its attached files
    as the library writes them (relative to the library's folder, or absolute)."""

    key: str
    title: str = ""
    authors: list[str] = field(default_factory=list)
    date: str | None = None
    doi: str | None = None
    url: str | None = None
    files: list[str] = field(default_factory=list)

    @property
    def link(self) -> str | None:
        """Where the paper is published: its DOI as a link, else its http(s) URL."""
        if self.doi:
            return f"https://doi.org/{self.doi}"
        return self.url


def clean(text: object) -> str:
    """A field's text, whitespace collapsed and cut at MAX_FIELD_CHARS ('' for no text)."""
    if not isinstance(text, str | int | float) or isinstance(text, bool):
        return ""
    return " ".join(str(text).split())[:MAX_FIELD_CHARS]


def doi_of(value: object) -> str | None:
    """``10.1234/abc`` from a DOI as libraries write it (a doi.org link, ``doi:`` before it)."""
    text = _DOI.sub("", clean(value))
    return text if text.startswith("10.") and "/" in text else None


def url_of(value: object) -> str | None:
    """An http(s) address; anything else (``file:``, ``javascript:``) is no link to show."""
    text = clean(value)
    return text if text.lower().startswith(("https://", "http://")) and " " not in text else None


def iso_date(parts: list[object]) -> str | None:
    """``[2021, 3, 4]`` → ``2021-03-04`` (year, month, day, as many as are known)."""
    numbers = []
    for part in parts[:3]:
        try:
            numbers.append(int(str(part)))
        except ValueError:
            break
    if not numbers or not 0 < numbers[0] < 10000:
        return None
    text = f"{numbers[0]:04d}"
    if len(numbers) > 1 and 1 <= numbers[1] <= 12:
        text += f"-{numbers[1]:02d}"
        if len(numbers) > 2 and 1 <= numbers[2] <= 31:
            text += f"-{numbers[2]:02d}"
    return text


def date_of(date: object = None, year: object = None, month: object = None) -> str | None:
    """An entry's date from biblatex's ``date`` (``2021-03-04``), else ``year`` and
    ``month`` (``mar``, ``3``, ``March``)."""
    found = _ISO.match(clean(date))
    if found:
        return iso_date([part for part in found.groups() if part])
    year_text = _YEAR.search(clean(year))
    if not year_text:
        return None
    month_text = clean(month).lower()[:3]
    number = _MONTHS.index(month_text) + 1 if month_text in _MONTHS else month_text
    return iso_date([year_text.group(1), number])
