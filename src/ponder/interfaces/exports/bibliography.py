"""The cited sources as a reference manager takes them: one record per source cited in any
turn, in the order of first citation, for BibTeX, RIS and CSL JSON to write.

A paper of your reference library comes with what its entry says: authors, date, title,
and its DOI or URL (``SourceRef.link``); any other source with what its page or file said
of itself. A web page is a web page; everything else is a document (the library's entries
do not say which were articles and which books, so no record claims to know).
"""

from __future__ import annotations

import itertools
import re
import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ponder.core.result import Report, SourceRef
from ponder.core.sources import source_key
from ponder.interfaces.exports.blocks import clean, web_link

_DOI_LINK = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\S+/\S+)$", re.IGNORECASE)
_ISO = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
# Lower-case words that belong to a family name: "Martin von Löwis", "Ludwig van Beethoven".
PARTICLES = {"von", "van", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le",
             "dos", "das", "ten", "ter", "zu", "y"}  # fmt: skip
# Words that make a name an organisation's, written as one.
BODIES = {"foundation", "team", "project", "university", "institute", "society", "association",
          "committee", "group", "contributors", "developers", "inc", "inc.", "ltd", "ltd.",
          "corporation", "organization", "organisation", "community", "authors"}  # fmt: skip
_STOPWORDS = {"a", "an", "the", "of", "on", "in", "and", "for", "to", "how", "what", "with"}


@dataclass(frozen=True)
class Name:
    """A person's name split as references need it, or an organisation's (``literal``)."""

    family: str = ""
    given: str = ""
    literal: str = ""

    def inverted(self) -> str:
        """'Lovelace, Ada' (RIS, and what BibTeX reads unambiguously); a body as named."""
        if self.literal:
            return self.literal
        return f"{self.family}, {self.given}" if self.given else self.family


@dataclass
class Record:
    key: str  # a citation key: lovelace1843, sortinghowto
    number: int  # the [n] it had where it was first cited
    kind: str  # "web" or "document"
    title: str
    authors: list[Name] = field(default_factory=list)
    date: tuple[int, ...] = ()  # (year,), (year, month) or (year, month, day)
    url: str | None = None  # where to read it: the web page, or the paper's URL
    doi: str | None = None  # 10.1234/abc
    path: str | None = None  # a document of yours that has no link
    site: str | None = None  # a web page's host: docs.python.org


def records(reports: Sequence[Report]) -> list[Record]:
    """A record per source cited in any of ``reports``, each once, keys unique."""
    seen: dict[str, Record] = {}
    for report in reports:
        for source in report.cited_sources():
            key = source_key(source.url)
            if key not in seen:
                seen[key] = record(source)
    found = list(seen.values())
    taken: set[str] = set()
    for entry in found:
        entry.key = _unique(entry.key, taken)
    return found


def record(source: SourceRef) -> Record:
    published = web_link(source.link)
    doi_match = _DOI_LINK.match(published or "")
    page = web_link(source.url)
    made = Record(
        key="",
        number=source.number,
        kind="web" if page else "document",
        title=clean(source.title or source.url).strip(),
        authors=[split_name(clean(name)) for name in source.authors if name.strip()],
        date=date_parts(source.date),
        url=page or (published if not doi_match else None),
        doi=doi_match.group(1) if doi_match else None,
        path=None if page or published else clean(source.url),
        site=(urlsplit(page).hostname or None) if page else None,
    )
    made.key = citation_key(made)
    return made


def split_name(name: str) -> Name:
    """'Ada Lovelace' → family Lovelace, given Ada; 'Lovelace, Ada' as well; 'Martin von
    Löwis' → family 'von Löwis'; one word or an organisation's name ('Python Software
    Foundation', 'Smith and Sons') → literal."""
    text = " ".join(name.split())
    if "," in text:
        family, given = (part.strip() for part in text.split(",", 1))
        return Name(family=family, given=given) if family else Name(literal=text)
    words = text.split(" ")
    lowered = {word.lower() for word in words}
    if len(words) == 1 or lowered & BODIES or lowered & {"and", "&"}:
        return Name(literal=text)
    start = len(words) - 1
    while start > 0 and words[start - 1] in PARTICLES:
        start -= 1
    return Name(family=" ".join(words[start:]), given=" ".join(words[:start]))


def date_parts(date: str | None) -> tuple[int, ...]:
    """``2021-03-04`` → (2021, 3, 4); as much of it as is given; () for none."""
    found = _ISO.match((date or "").strip())
    if not found:
        return ()
    parts = tuple(int(part) for part in found.groups() if part)
    if len(parts) > 1 and not 1 <= parts[1] <= 12:
        return parts[:1]
    if len(parts) > 2 and not 1 <= parts[2] <= 31:
        return parts[:2]
    return parts


def citation_key(entry: Record) -> str:
    """The first author's family name and the year (lovelace1843), else the title's first
    words (sortinghowto); ASCII letters and digits only."""
    year = str(entry.date[0]) if entry.date else ""
    if entry.authors:
        first = entry.authors[0]
        stem = _ascii(first.family or first.literal).split()
        base = stem[-1] if stem else ""
    else:
        words = [w for w in _ascii(entry.title).split() if w not in _STOPWORDS]
        base = "".join(words[:2])
    return (base[:24] or "source") + year


def _ascii(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", " ", plain).strip()


def _unique(key: str, taken: set[str]) -> str:
    """``key``, or ``key`` with the first free suffix: a, b, … z, then 2, 3, …"""
    candidates = itertools.chain(
        [key],
        (key + letter for letter in string.ascii_lowercase),
        (f"{key}{n}" for n in itertools.count(2)),
    )
    found = next(candidate for candidate in candidates if candidate not in taken)
    taken.add(found)
    return found
