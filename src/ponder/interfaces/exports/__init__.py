"""A report as the files people hand on: Markdown, HTML, PDF, DOCX, ODT, and its cited
sources as BibTeX, RIS and CSL JSON. One module per format; the page, the command line
and ``ponder.export`` all go through :func:`export`.

Each takes one report or a conversation's reports (one per turn): with several, each turn
is a section headed by its question, with its own sources. All keep the ``[n]`` citations
and the sources; the PDF, DOCX and ODT also hold the evidence behind each ``[n]``, the
span of a passage its sentence rests on, under its source.

    from ponder import export, research
    report = research("How do tides work?")
    Path("tides.pdf").write_bytes(export(report, "pdf"))
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ponder.core.errors import InvalidInputError

if TYPE_CHECKING:  # the command line reads NAMES for --help: pydantic waits for a report
    from ponder.core.result import Report


@dataclass(frozen=True)
class Kind:
    """An export format: its name (``--format``, the page's ``export.NAME``, the file's
    suffix), what the page's Export menu calls it and says it holds (``about``), its media
    type, and the module whose ``export_bytes(reports) -> bytes`` writes it (imported when
    first used: Typst or python-docx load only for their format)."""

    name: str
    label: str
    media_type: str
    module: str
    about: str

    @property
    def suffix(self) -> str:
        return f".{self.name}"

    def render(self, reports: Sequence[Report]) -> bytes:
        from ponder.interfaces.exports.blocks import clean_report

        module = importlib.import_module(f"ponder.interfaces.exports.{self.module}")
        writer: Callable[[Sequence[Report]], bytes] = module.export_bytes
        return writer([clean_report(report) for report in reports])


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("md", "Markdown", "text/markdown; charset=utf-8", "markdown_text", "the report"),
        Kind("html", "HTML", "text/html; charset=utf-8", "web", "a self-contained page"),
        Kind("pdf", "PDF", "application/pdf", "pdf", "with the evidence"),
        Kind(
            "docx",
            "Word",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "docx",
            "with the evidence",
        ),
        Kind(
            "odt",
            "OpenDocument",
            "application/vnd.oasis.opendocument.text",
            "odt",
            "with the evidence",
        ),
        Kind("bib", "BibTeX", "application/x-bibtex; charset=utf-8", "bibtex", "cited sources"),
        Kind(
            "ris",
            "RIS",
            "application/x-research-info-systems; charset=utf-8",
            "ris",
            "cited sources",
        ),
        Kind(
            "csl.json",
            "CSL JSON",
            "application/vnd.citationstyles.csl+json",
            "csl",
            "cited sources",
        ),
    )
}
NAMES = tuple(KINDS)


def kind_of(name: str) -> Kind:
    kind = KINDS.get(name.lower().lstrip("."))
    if kind is None:
        raise InvalidInputError(
            f"Unknown export format {name!r} — choose one of {', '.join(NAMES)}."
        )
    return kind


def kind_of_path(name: str) -> Kind | None:
    """The format a file name asks for by its suffix (``report.csl.json``: CSL JSON)."""
    lowered = name.lower()
    found = [kind for kind in KINDS.values() if lowered.endswith(kind.suffix)]
    found += [KINDS["html"]] if lowered.endswith(".htm") else []
    return max(found, key=lambda kind: len(kind.suffix), default=None)


def export(reports: Report | Sequence[Report], format: str = "pdf") -> bytes:
    """The report (or a thread's reports, one per turn) as a file of ``format``: one of
    md, html, pdf, docx, odt, bib, ris, csl.json. Returns the file's bytes."""
    from ponder.interfaces.exports.document import as_reports

    kind = kind_of(format)
    return kind.render(as_reports(reports))


__all__ = ["KINDS", "NAMES", "Kind", "export", "kind_of", "kind_of_path"]
