"""What ODT and ODS share (OpenDocument, ISO/IEC 26300): the package's metadata and the
text of a paragraph, read from XML without recursion (a hostile file nests as deep as it
likes, and Python's stack would not)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from xml.etree.ElementTree import Element

from ponder.services.search.backends.local.formats.container import Zipped
from ponder.services.search.backends.local.formats.document import clean_title
from ponder.services.search.backends.local.formats.markup import iso_date, local, number

MAX_SPACES = 100  # a <text:s text:c="…"> run of spaces, as written
# Inline elements whose text is not the paragraph's: footnotes (read at the end),
# annotations, and the text of deleted changes.
_ASIDE = frozenset(("note", "annotation", "tracked-changes", "deletion"))


def metadata(package: Zipped) -> tuple[str, list[str], str | None]:
    """Title, authors (the creator, else the initial creator) and date from ``meta.xml``."""
    if not package.has("meta.xml"):
        return "", [], None
    fields: dict[str, str] = {}
    for element in package.xml("meta.xml").iter():
        fields.setdefault(local(element.tag), " ".join("".join(element.itertext()).split()))
    author = fields.get("initial-creator") or fields.get("creator") or ""
    authors = [a for a in re.split(r"\s*;\s*", clean_title(author)) if a]
    date = iso_date(fields.get("creation-date") or "") or iso_date(fields.get("date") or "")
    return clean_title(fields.get("title")), authors, date


def inline_text(paragraph: Element) -> str:
    """A paragraph's text: spans, links and fields run on; ``text:s`` is its spaces,
    ``text:tab`` a tab, ``text:line-break`` a new line; notes and annotations are left out."""
    parts: list[str] = []
    stack: list[tuple[Element, bool]] = [(paragraph, False)]
    while stack:
        element, closing = stack.pop()
        if closing:
            if element is not paragraph and element.tail:
                parts.append(element.tail)
            continue
        name = local(element.tag)
        if element is not paragraph and name in _ASIDE:
            parts.append(element.tail or "")
            continue
        if name == "s":
            count = number(element.get(_attribute(element, "c")), 1)
            parts.append(" " * min(count, MAX_SPACES))
        elif name == "tab":
            parts.append("\t")
        elif name == "line-break":
            parts.append("\n")
        elif element.text:
            parts.append(element.text)
        stack.append((element, True))
        stack.extend((child, False) for child in reversed(list(element)))
    return "".join(parts)


def notes(root: Element) -> Iterator[str]:
    """The text of every footnote and endnote, in order."""
    for note in root.iter():
        if local(note.tag) == "note-body":
            for paragraph in note.iter():
                if local(paragraph.tag) in ("p", "h") and (text := inline_text(paragraph).strip()):
                    yield text


def _attribute(element: Element, name: str) -> str:
    """The full (namespaced) key of ``element``'s attribute named ``name``."""
    return next((key for key in element.attrib if local(key) == name), name)


def attribute(element: Element, name: str) -> str | None:
    return element.get(_attribute(element, name))
