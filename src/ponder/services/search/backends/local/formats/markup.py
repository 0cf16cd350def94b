"""XML from files, parsed with entity declarations refused, and the names in it.

defusedxml (PSF licence) wraps the standard library's expat parser so that a document
declaring an entity, or reaching out to an external one, is refused before any expansion:
the "billion laughs" and its kin cannot grow a few kilobytes into gigabytes, and no file
makes ponder read another. A plain DOCTYPE is allowed (some writers add one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException, EntitiesForbidden
from defusedxml.ElementTree import fromstring

from ponder.services.search.backends.local.formats.document import SkipFile


def parse_xml(data: bytes, where: str) -> Element:
    """``data`` parsed; SkipFile naming ``where`` when it is refused or not XML."""
    try:
        root: Element = fromstring(
            data, forbid_dtd=False, forbid_entities=True, forbid_external=True
        )
    except (DefusedXmlException, ParseError) as exc:
        raise refused(exc, where) from None
    return root


def refused(exc: Exception, where: str) -> SkipFile:
    """Why XML at ``where`` cannot be read, as the SkipFile to raise (a parser's error that
    is neither a refusal nor malformed XML is re-raised: it is a bug, not the file)."""
    if isinstance(exc, EntitiesForbidden):
        return SkipFile(
            f"{where} declares XML entities, which are refused (an entity-expansion bomb?)"
        )
    if isinstance(exc, DefusedXmlException):
        return SkipFile(f"{where} refers to an external file, which is refused")
    if isinstance(exc, ParseError):
        return SkipFile(f"{where} is not well-formed XML ({exc})")
    raise exc


def local(tag: object) -> str:
    """An element's name without its namespace: ``{urn:…}p`` → ``p``."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def table_rows(
    table: Element, row: str, cell: str, paragraph: tuple[str, ...], text: Callable[[Element], str]
) -> Iterator[str]:
    """A word processor's table, row by row, cells joined by " | " (DOCX and ODT differ only in
    their tags); a nested table's rows come again on their own."""
    for element in table.iter():
        if local(element.tag) != row:
            continue
        cells = []
        for child in element:
            if local(child.tag) == cell:
                texts = (text(p) for p in child.iter() if local(p.tag) in paragraph)
                cells.append(" ".join(" ".join(t.split()) for t in texts if t.strip()))
        if any(cells):
            yield " | ".join(cells)


def number(text: str | None, default: int) -> int:
    """An attribute's whole number, or ``default`` (an absent, odd or "²" value, which
    ``str.isdigit`` would take and ``int`` refuse)."""
    value = (text or "").strip()
    return int(value) if value.isdecimal() and value.isascii() else default


def iso_date(value: str) -> str | None:
    """The date part of an ISO 8601 timestamp (``2021-03-04T10:00:00Z`` → ``2021-03-04``),
    or None when ``value`` does not start with one."""
    text = value.strip()
    head = text[:10]
    if len(head) == 10 and head[4] == "-" and head[7] == "-" and head.replace("-", "").isdigit():
        return head
    if len(text) >= 4 and text[:4].isdigit() and (len(text) == 4 or not text[4].isdigit()):
        return text[:4]
    return None
