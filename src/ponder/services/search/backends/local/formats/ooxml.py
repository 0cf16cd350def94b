"""What DOCX, PPTX and XLSX share (Office Open XML, ECMA-376): the package's relationships,
which name its parts, and its core properties, which hold the title, authors and dates.

Elements are matched by their local names, so the transitional and the strict namespaces
(Word writes the first, "Strict Open XML" the second) read alike.
"""

from __future__ import annotations

import posixpath
import re

from ponder.services.search.backends.local.formats.container import Zipped, member_path
from ponder.services.search.backends.local.formats.document import SkipFile, clean_title
from ponder.services.search.backends.local.formats.markup import iso_date, local

CORE = "docProps/core.xml"


def relationships(package: Zipped, part: str) -> dict[str, tuple[str, str]]:
    """The relationships of ``part`` ('' for the package): id → (type's last word, member)."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", f"{name}.rels")
    if not package.has(rels):
        return {}
    found = {}
    for rel in package.xml(rels):
        if local(rel.tag) != "Relationship" or rel.get("TargetMode") == "External":
            continue
        kind = (rel.get("Type") or "").rsplit("/", 1)[-1]
        found[rel.get("Id") or ""] = (kind, member_path(part or "/", rel.get("Target") or ""))
    return found


def main_part(package: Zipped, fallback: str) -> str:
    """The package's main part (``word/document.xml`` in a DOCX Word wrote)."""
    for kind, target in relationships(package, "").values():
        if kind == "officeDocument" and package.has(target):
            return target
    if package.has(fallback):
        return fallback
    raise SkipFile(f"not a readable {package.kind} file (it has no {fallback})")


def related(package: Zipped, part: str, kind: str) -> list[str]:
    """The members ``part`` relates to as ``kind`` (``footnotes``, ``notesSlide``…)."""
    return [t for k, t in relationships(package, part).values() if k == kind and package.has(t)]


def core_properties(package: Zipped) -> tuple[str, list[str], str | None]:
    """Title, authors and date (created, else modified) of the core properties."""
    if not package.has(CORE):
        return "", [], None
    fields: dict[str, str] = {}
    for element in package.xml(CORE):
        fields.setdefault(local(element.tag), " ".join("".join(element.itertext()).split()))
    authors = [a for a in re.split(r"\s*;\s*", clean_title(fields.get("creator"))) if a]
    date = iso_date(fields.get("created") or "") or iso_date(fields.get("modified") or "")
    return clean_title(fields.get("title")), authors, date
