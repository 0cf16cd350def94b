"""The report as a Word document (DOCX), written with python-docx.

Why python-docx (MIT): the library people use to write Word files from Python, pure
Python over lxml (which ponder already has), with Word's own default template inside it;
it writes each string as a text node, so no text of a report can become markup.
What it lacks, hyperlinks and bookmarks, is a few elements of WordprocessingML added here.

Each ``[n]`` links to the evidence it rests on: under its source in Sources, the quoted
span of the passage and the sentence it backs.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
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

LINK_COLOUR = "1F4E8C"
MUTED = "5F5F5F"
MONO = "Courier New"
LIST_STYLES = 3  # Word's template has "List Bullet" … "List Bullet 3"


def export_bytes(reports: Sequence[Report]) -> bytes:
    return render(document(reports))


def render(doc: Document) -> bytes:
    import docx

    word = docx.Document()
    word.core_properties.title = doc.title[:250]
    word.core_properties.author = "ponder"
    writer = _Writer(word, doc)
    for turn in doc.turns:
        writer.turn(turn)
    note = word.add_paragraph()
    _styled(note.add_run(footer(doc)), size=8, colour=MUTED)
    out = io.BytesIO()
    word.save(out)
    return out.getvalue()


class _Writer:
    def __init__(self, word: Any, doc: Document) -> None:
        self.word = word
        self.doc = doc
        self.bookmarks = 0

    def turn(self, turn: Turn) -> None:
        if self.doc.several:
            self.word.add_heading(turn.question, level=1)
        for block in turn.blocks:
            self.block(turn, block)
        if turn.sources:
            self.word.add_heading("Sources", self.doc.sources_level)
            intro = self.word.add_paragraph()
            _styled(intro.add_run(SOURCES_INTRO), size=9, colour=MUTED)
            for source in turn.sources:
                self.source(turn, source)

    def block(self, turn: Turn, block: Block, style: str | None = None, depth: int = 0) -> None:
        word = self.word
        if block.kind == "heading":
            paragraph = word.add_heading("", level=self.doc.heading_level(block.level))
            self.runs(turn, paragraph, block.runs)
        elif block.kind == "paragraph":
            self.runs(turn, word.add_paragraph(style=style), block.runs)
        elif block.kind == "list":
            self.items(turn, block, depth)
        elif block.kind == "table":
            self.table(turn, block)
        elif block.kind == "code":
            paragraph = word.add_paragraph(style="macro" if _has(word, "macro") else None)
            _styled(paragraph.add_run(block.text), mono=True, size=8.5)
        elif block.kind == "quote":
            for child in block.children:
                self.block(turn, child, style="Quote", depth=depth)
        elif block.kind == "rule":
            _rule(word.add_paragraph())

    def items(self, turn: Turn, block: Block, depth: int) -> None:
        level = min(depth + 1, LIST_STYLES)
        suffix = "" if level == 1 else f" {level}"
        for number, item in enumerate(block.items, start=block.start):
            first = True
            for child in item:
                if child.kind == "paragraph" and first:
                    # Numbers written out: Word's "List Number" would go on counting from
                    # the list before, and a list may start at any number.
                    style = ("List" if block.ordered else "List Bullet") + suffix
                    paragraph = self.word.add_paragraph(style=style)
                    if block.ordered:
                        paragraph.add_run(f"{number}. ")
                    self.runs(turn, paragraph, child.runs)
                elif child.kind == "paragraph":
                    paragraph = self.word.add_paragraph(style="List Continue" + suffix)
                    self.runs(turn, paragraph, child.runs)
                else:
                    self.block(turn, child, depth=depth + 1)
                first = False

    def table(self, turn: Turn, block: Block) -> None:
        from docx.enum.text import WD_ALIGN_PARAGRAPH

        width = len(block.align)
        if not width:
            return
        table = self.word.add_table(rows=len(block.rows), cols=width)
        table.style = "Table Grid"
        aligns = {"right": WD_ALIGN_PARAGRAPH.RIGHT, "center": WD_ALIGN_PARAGRAPH.CENTER}
        for at, (row, cells) in enumerate(zip(table.rows, block.rows, strict=True)):
            head = at < block.header
            if head:
                _repeat_header(row)
            for column, (cell, runs) in enumerate(zip(row.cells, cells, strict=True)):
                paragraph = cell.paragraphs[0]
                paragraph.alignment = aligns.get(block.align[column])
                self.runs(turn, paragraph, runs, bold=head)
        self.word.add_paragraph()

    def runs(self, turn: Turn, paragraph: Any, runs: list[Run], bold: bool = False) -> None:
        for run in runs:
            if run.cite is not None:
                target = self.cite_target(turn, run)
                if target:
                    _link(paragraph, run.text, anchor=target)
                else:
                    paragraph.add_run(run.text)
                continue
            if run.unsupported:
                _styled(paragraph.add_run(f"[{run.text}]"), italic=True, colour="A33333", size=8)
                continue
            made = _link(paragraph, run.text, url=run.href) if run.href else None
            made = made or paragraph.add_run(run.text)
            _styled(made, bold=run.bold or bold or None, italic=run.italic or None, mono=run.code)

    def cite_target(self, turn: Turn, run: Run) -> str | None:
        if turn.quote(run.evidence) is not None:
            return _evidence_mark(turn, run.evidence or 0)
        if any(source.number == run.cite for source in turn.sources):
            return _source_mark(turn, run.cite or 0)
        return None

    def source(self, turn: Turn, source: Cited) -> None:
        entry = self.word.add_paragraph()
        entry.paragraph_format.space_before = _pt(8)
        self.bookmark(entry, _source_mark(turn, source.number))
        _styled(entry.add_run(f"[{source.number}] "), bold=True)
        title = _link(entry, source.title, url=source.link) if source.link else None
        _styled(title or entry.add_run(source.title), bold=True)
        about = self.word.add_paragraph()
        about.paragraph_format.space_before = _pt(0)
        if source.link:
            _styled(_link(about, source.url, url=source.link), size=8.5)
        else:
            _styled(about.add_run(source.url), mono=True, size=8)
        for part in (source.byline, source.published, source.origin):
            if part:
                _styled(about.add_run(" · "), size=8.5, colour=MUTED)
                made = _link(about, part, url=part) if part == source.published else None
                _styled(made or about.add_run(part), size=8.5, colour=None if made else MUTED)
        for quote in source.quotes:
            said = self.word.add_paragraph()
            said.paragraph_format.left_indent = _cm(0.6)
            self.bookmark(said, _evidence_mark(turn, quote.index))
            _styled(said.add_run(f"“{quote.quote}”"), size=9.5)
            said.add_run().add_break()
            _styled(said.add_run(quote.note), size=8, colour=MUTED)
        if not source.quotes:
            none = self.word.add_paragraph()
            _styled(none.add_run("No citation of it kept a quote."), size=8.5, colour=MUTED)

    def bookmark(self, paragraph: Any, name: str) -> None:
        from docx.oxml import OxmlElement
        from docx.oxml.ns import qn

        self.bookmarks += 1
        start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
        start.set(qn("w:id"), str(self.bookmarks))
        start.set(qn("w:name"), name)
        end.set(qn("w:id"), str(self.bookmarks))
        paragraph._p.append(start)
        paragraph._p.append(end)


def _source_mark(turn: Turn, number: int) -> str:
    return f"t{turn.number}_source{number}"  # a bookmark's name: a letter, then \w only


def _evidence_mark(turn: Turn, index: int) -> str:
    return f"t{turn.number}_evidence{index}"


def _link(paragraph: Any, text: str, url: str | None = None, anchor: str | None = None) -> Any:
    """A run of ``text`` inside a hyperlink to ``url`` or to the bookmark ``anchor``."""
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    link = OxmlElement("w:hyperlink")
    if url:
        where = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        link.set(qn("r:id"), where)
    else:
        link.set(qn("w:anchor"), anchor or "")
    run = paragraph.add_run(text)
    link.append(run._r)
    paragraph._p.append(link)
    _styled(run, colour=LINK_COLOUR)
    run.font.underline = bool(url)
    return run


def _styled(
    run: Any,
    *,
    bold: bool | None = None,
    italic: bool | None = None,
    mono: bool = False,
    size: float | None = None,
    colour: str | None = None,
) -> Any:
    from docx.shared import RGBColor

    run.bold = bold
    run.italic = italic
    if mono:
        run.font.name = MONO
    if size:
        run.font.size = _pt(size)
    if colour:
        run.font.color.rgb = RGBColor.from_string(colour)
    return run


def _repeat_header(row: Any) -> None:
    """The table's head row repeated at the top of each page it runs onto."""
    from docx.oxml import OxmlElement

    row._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))


def _rule(paragraph: Any) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    border, bottom = OxmlElement("w:pBdr"), OxmlElement("w:bottom")
    for key, value in (("val", "single"), ("sz", "6"), ("space", "1"), ("color", "AAAAAA")):
        bottom.set(qn(f"w:{key}"), value)
    border.append(bottom)
    paragraph._p.get_or_add_pPr().append(border)


def _has(word: Any, style: str) -> bool:
    return any(found.name == style for found in word.styles)


def _pt(size: float) -> Any:
    from docx.shared import Pt

    return Pt(size)


def _cm(size: float) -> Any:
    from docx.shared import Cm

    return Cm(size)
