"""The cited sources as RIS, the tagged format reference managers (Zotero, EndNote,
Mendeley, JabRef) import: ``TY`` ELEC for a web page and GEN for a document, ``TI``,
``AU`` (one per author, "Family, Given"), ``PY`` and ``DA``, ``UR``, ``DO``, ``L1`` for a
document of yours, ``N1`` for the ``[n]`` it had in the report, and ``ER`` to end it.
Lines end with CR LF, as the format's specification writes them; a value is one line."""

from __future__ import annotations

from collections.abc import Sequence

from ponder.core.result import Report
from ponder.interfaces.exports.bibliography import Record, records


def export_bytes(reports: Sequence[Report]) -> bytes:
    return "".join(entry(found) for found in records(reports)).encode("utf-8")


def entry(found: Record) -> str:
    tags: list[tuple[str, str]] = [("TY", "ELEC" if found.kind == "web" else "GEN")]
    tags.append(("ID", found.key))
    tags.append(("TI", found.title))
    tags += [("AU", name.inverted()) for name in found.authors]
    if found.date:
        tags.append(("PY", f"{found.date[0]:04d}"))
        month, day = [*found.date[1:], 0, 0][:2]
        tags.append(("DA", f"{found.date[0]:04d}/{_two(month)}/{_two(day)}/"))
    if found.url:
        tags.append(("UR", found.url))
    if found.doi:
        tags.append(("DO", found.doi))
    if found.site:
        tags.append(("PB", found.site))
    if found.path:
        tags.append(("L1", found.path))
    tags.append(("N1", f"Cited as [{found.number}] in ponder's report."))
    lines = [f"{tag}  - {' '.join(value.split())}" for tag, value in tags]
    return "\r\n".join([*lines, "ER  - ", "", ""])


def _two(number: int) -> str:
    return f"{number:02d}" if number else ""
