"""The report as an OpenDocument text (ODT), written with odfpy.

Why odfpy (Apache-2.0, chosen of its Apache-2.0, GPL and LGPL licences): Python's
long-standing OpenDocument library, pure Python (installed from its source on any
platform; its one dependency, defusedxml, ponder already has), already what the tests
write ODT documents with, and it writes every string as an escaped text node, so no text
of a report can become markup. odfdo (Apache-2.0, over lxml) would do too.

Each ``[n]`` links to the evidence it rests on: under its source in Sources, the quoted
span of the passage and the sentence it backs.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from odf.dc import Creator, Title
from odf.opendocument import OpenDocumentText
from odf.table import Table, TableCell, TableColumn, TableHeaderRows, TableRow
from odf.teletype import addTextToElement
from odf.text import (
    A,
    Bookmark,
    H,
    LineBreak,
    List,
    ListItem,
    P,
    Span,
)

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
from ponder.interfaces.exports.odt_styles import LINK_COLOUR, MUTED, OdtStyles


def export_bytes(reports: Sequence[Report]) -> bytes:
    return render(document(reports))


def render(doc: Document) -> bytes:
    odt = OpenDocumentText()
    odt.meta.addElement(Title(text=doc.title))
    odt.meta.addElement(Creator(text="ponder"))
    writer = _Writer(odt, doc)
    for turn in doc.turns:
        writer.turn(turn)
    writer.paragraph([Run(footer(doc))], style=writer.styles.small)
    out = io.BytesIO()
    odt.write(out)
    return out.getvalue()


class _Writer:
    def __init__(self, odt: Any, doc: Document) -> None:
        self.odt = odt
        self.doc = doc
        self.styles = OdtStyles(odt)
        self.tables = 0

    def add(self, element: Any) -> Any:
        self.odt.text.addElement(element)
        return element

    def turn(self, turn: Turn) -> None:
        if self.doc.several:
            self.add(self.heading(1, [Run(turn.question)], turn))
        for block in turn.blocks:
            for element in self.block(turn, block):
                self.add(element)
        if turn.sources:
            self.add(self.heading(self.doc.sources_level, [Run("Sources")], turn))
            self.paragraph([Run(SOURCES_INTRO)], style=self.styles.small)
            for source in turn.sources:
                self.source(turn, source)

    def heading(self, level: int, runs: list[Run], turn: Turn) -> Any:
        heading = H(outlinelevel=level, stylename=self.styles.headings[level])
        self.fill(heading, runs, turn)
        return heading

    def paragraph(self, runs: list[Run], style: Any = None, turn: Turn | None = None) -> Any:
        return self.add(self.para(runs, style, turn))

    def para(self, runs: list[Run], style: Any = None, turn: Turn | None = None) -> Any:
        paragraph = P(stylename=style or self.styles.body)
        self.fill(paragraph, runs, turn)
        return paragraph

    def block(self, turn: Turn, block: Block, style: Any = None) -> list[Any]:
        """The elements of ``block`` (a list's items hold their own blocks)."""
        if block.kind == "heading":
            return [self.heading(self.doc.heading_level(block.level), block.runs, turn)]
        if block.kind == "paragraph":
            return [self.para(block.runs, style, turn)]
        if block.kind == "list":
            return self.items(turn, block)
        if block.kind == "table":
            return [self.table(turn, block)]
        if block.kind == "code":
            code = P(stylename=self.styles.code)
            addTextToElement(code, block.text)
            return [code]
        if block.kind == "quote":
            return [
                e for child in block.children for e in self.block(turn, child, self.styles.quote)
            ]
        if block.kind == "rule":
            return [P(stylename=self.styles.rule)]
        return []

    def items(self, turn: Turn, block: Block) -> list[Any]:
        """The list, then any table its items hold: OpenDocument has no table inside a
        list item (odfpy refuses one), so it follows the list."""
        ordered, bulleted = self.styles.lists
        made = List(stylename=ordered if block.ordered else bulleted)
        after: list[Any] = []
        for position, item in enumerate(block.items):
            start = {"startvalue": block.start} if block.ordered and position == 0 else {}
            entry = ListItem(**start)
            for child in item:
                for element in self.block(turn, child):
                    if element.tagName == "table:table":
                        after.append(element)
                    else:
                        entry.addElement(element)
            if not entry.childNodes:
                entry.addElement(self.para([]))
            made.addElement(entry)
        return [made, *after]

    def table(self, turn: Turn, block: Block) -> Any:
        self.tables += 1
        table = Table(name=f"Table{self.tables}")
        table.addElement(TableColumn(numbercolumnsrepeated=max(len(block.align), 1)))
        head = TableHeaderRows()
        if block.header:
            table.addElement(head)
        for at, cells in enumerate(block.rows):
            row = TableRow()
            for column, runs in enumerate(cells):
                cell = TableCell(valuetype="string", stylename=self.styles.cell)
                bold = at < block.header
                shown = [Run(r.text, bold=True) if bold and r.cite is None else r for r in runs]
                paragraph = self.para(shown, turn=turn)
                align = block.align[column]
                if align in ("right", "center"):
                    paragraph.setAttribute("stylename", self.styles.aligned_cell(align))
                cell.addElement(paragraph)
                row.addElement(cell)
            (head if at < block.header else table).addElement(row)
        return table

    def fill(self, element: Any, runs: list[Run], turn: Turn | None) -> None:
        for run in runs:
            if run.cite is not None and turn is not None:
                target = self.cite_target(turn, run)
                span = Span(stylename=self.styles.span(colour=LINK_COLOUR))
                addTextToElement(span, run.text)
                if target:
                    link = A(href=f"#{target}", type="simple")
                    link.addElement(span)
                    element.addElement(link)
                else:
                    element.addElement(span)
                continue
            if run.unsupported:
                span = Span(stylename=self.styles.span(italic=True, colour="#a33333", size="8pt"))
                addTextToElement(span, f"[{run.text}]")
                element.addElement(span)
                continue
            if not (run.bold or run.italic or run.code or run.href):
                addTextToElement(element, run.text)  # plain text needs no span
                continue
            style = self.styles.span(
                bold=run.bold,
                italic=run.italic,
                code=run.code,
                colour=LINK_COLOUR if run.href else None,
                underline=bool(run.href),
            )
            span = Span(stylename=style)
            addTextToElement(span, run.text)
            if run.href:
                link = A(href=run.href, type="simple")
                link.addElement(span)
                element.addElement(link)
            else:
                element.addElement(span)

    def cite_target(self, turn: Turn, run: Run) -> str | None:
        if turn.quote(run.evidence) is not None:
            return _evidence_mark(turn, run.evidence or 0)
        if any(source.number == run.cite for source in turn.sources):
            return _source_mark(turn, run.cite or 0)
        return None

    def source(self, turn: Turn, source: Cited) -> None:
        title = Run(source.title, bold=True, href=source.link)
        entry = self.para([Run(f"[{source.number}] ", bold=True), title], self.styles.entry)
        entry.insertBefore(Bookmark(name=_source_mark(turn, source.number)), entry.firstChild)
        self.add(entry)
        about = [Run(source.url, href=source.link, code=not source.link)]
        for part in (source.byline, source.published, source.origin):
            if part:
                about += [Run(" · "), Run(part, href=part if part == source.published else None)]
        self.paragraph(about, self.styles.small)
        for quote in source.quotes:
            said = self.para([Run(f"“{quote.quote}”")], self.styles.evidence)
            said.insertBefore(Bookmark(name=_evidence_mark(turn, quote.index)), said.firstChild)
            said.addElement(LineBreak())
            backs = Span(stylename=self.styles.span(colour=MUTED, size="8pt"))
            addTextToElement(backs, quote.note)
            said.addElement(backs)
            self.add(said)
        if not source.quotes:
            self.paragraph([Run("No citation of it kept a quote.")], self.styles.small)


def _source_mark(turn: Turn, number: int) -> str:
    return f"t{turn.number}_source{number}"


def _evidence_mark(turn: Turn, index: int) -> str:
    return f"t{turn.number}_evidence{index}"
