"""The report as a PDF, typeset by Typst on this machine, with no network and no LaTeX.

Why Typst (the ``typst`` package on PyPI, Apache-2.0): one wheel per platform (Linux
x86_64 and aarch64, macOS, Windows) holds the compiler and its fonts (Libertinus Serif,
New Computer Modern, DejaVu Sans Mono), so a PDF needs nothing beyond what pip installs, and
Greek or accented text is set in a real font, not boxes. It lays out a 20-source report in
milliseconds, with tables that break across pages, links, and the evidence of each
citation one click from its ``[n]``. reportlab (BSD) was the other candidate: its fonts
are Latin-only Type 1 and Vera, so any other script would need a font file shipped with
ponder, and its Paragraph markup must be escaped by hand; WeasyPrint needs Pango from the
system; LaTeX is far from pip.

Safety: the layout is a fixed Typst file (``report.typ``); everything that came from a
model, a web page or a document is passed in ``sys.inputs`` as JSON and only ever shown as
strings, which Typst sets as text, never evaluates as markup. So ``#read("/etc/passwd")``
in a report is printed as written, and nothing is read: the layout imports no package and
reads no file. Links are made only of http(s) addresses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict
from importlib import resources
from typing import Any

from ponder.core.result import Report
from ponder.interfaces.exports.blocks import Block, Run
from ponder.interfaces.exports.document import (
    SOURCES_INTRO,
    Cited,
    Document,
    Turn,
    document,
    footer,
)

# A word longer than this gets a place to break every BREAK_EVERY characters (a zero-width
# space): Typst breaks lines only between words, and a 400-character token would run off
# the page.
LONG_WORD = 32
BREAK_EVERY = 24
_LONG = re.compile(rf"\S{{{LONG_WORD},}}")
ZERO_WIDTH_SPACE = "\u200b"


def export_bytes(reports: Sequence[Report]) -> bytes:
    return render(document(reports))


def render(doc: Document) -> bytes:
    import typst

    layout = resources.files("ponder.interfaces.exports").joinpath("report.typ").read_bytes()
    data = json.dumps(pdf_data(doc), ensure_ascii=False)
    pdf: bytes = typst.compile(layout, sys_inputs={"report": data})
    return pdf


def pdf_data(doc: Document) -> dict[str, Any]:
    """What the layout is filled with: strings, numbers and lists only."""
    return {
        "title": doc.title,
        "several": doc.several,
        "sources_level": doc.sources_level,
        "footer": breakable(footer(doc)),
        "sources_intro": SOURCES_INTRO,
        "turns": [_turn(doc, turn) for turn in doc.turns],
    }


def _turn(doc: Document, turn: Turn) -> dict[str, Any]:
    return {
        "question": breakable(turn.question),
        "blocks": [_block(doc, turn, block) for block in turn.blocks],
        "sources": [_source(turn, source) for source in turn.sources],
    }


def _block(doc: Document, turn: Turn, block: Block) -> dict[str, Any]:
    data = asdict(block)
    data["level"] = doc.heading_level(block.level) if block.kind == "heading" else block.level
    data["runs"] = [_run(turn, run) for run in block.runs]
    data["items"] = [[_block(doc, turn, child) for child in item] for item in block.items]
    data["rows"] = [[[_run(turn, run) for run in cell] for cell in row] for row in block.rows]
    data["children"] = [_block(doc, turn, child) for child in block.children]
    data["text"] = breakable(block.text, 80) if block.kind == "code" else block.text
    return data


def _run(turn: Turn, run: Run) -> dict[str, Any]:
    data = asdict(run)
    data["text"] = breakable(run.text)
    data["target"] = None
    if run.cite is not None:
        listed = {source.number for source in turn.sources}
        if turn.quote(run.evidence) is not None:
            data["target"] = evidence_anchor(turn, run.evidence or 0)
        elif run.cite in listed:
            data["target"] = source_anchor(turn, run.cite)
    return data


def _source(turn: Turn, source: Cited) -> dict[str, Any]:
    data = asdict(source)  # link and published stay whole: they are where links lead
    for key in ("title", "url", "byline"):
        data[key] = breakable(data[key])
    data["published_text"] = breakable(source.published or "")
    data["anchor"] = source_anchor(turn, source.number)
    data["quotes"] = [
        {
            **asdict(quote),
            "quote": breakable(quote.quote),
            "note": breakable(quote.note),
            "anchor": evidence_anchor(turn, quote.index),
        }
        for quote in source.quotes
    ]
    return data


def source_anchor(turn: Turn, number: int) -> str:
    return f"turn{turn.number}-source{number}"


def evidence_anchor(turn: Turn, index: int) -> str:
    return f"turn{turn.number}-evidence{index}"


def breakable(text: str, longer_than: int = LONG_WORD) -> str:
    """``text`` with a zero-width space every BREAK_EVERY characters of a long word."""
    if len(text) < longer_than:
        return text

    def split(match: re.Match[str]) -> str:
        word = match.group(0)
        if len(word) < longer_than:
            return word
        pieces = (word[i : i + BREAK_EVERY] for i in range(0, len(word), BREAK_EVERY))
        return ZERO_WIDTH_SPACE.join(pieces)

    return _LONG.sub(split, text)
