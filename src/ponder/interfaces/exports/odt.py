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
from odf.style import (
    FontFace,
    ListLevelProperties,
    ParagraphProperties,
    Style,
    TableCellProperties,
    TextProperties,
)
from odf.table import Table, TableCell, TableColumn, TableHeaderRows, TableRow
from odf.teletype import addTextToElement
from odf.text import (
    A,
    Bookmark,
    H,
    LineBreak,
    List,
    ListItem,
    ListLevelStyleBullet,
    ListLevelStyleNumber,
    ListStyle,
    P,
    Span,
)

from ponder.core.result import Report
from ponder.interfaces.exports.blocks import Block, Run
from ponder.interfaces.exports.document import Cited, Document, Turn, document, footer

LINK_COLOUR = "#1f4e8c"
MUTED = "#5f5f5f"
MONO = "Liberation Mono"  # LibreOffice's own; any fixed-pitch font stands in elsewhere
HEADING_SIZES = {1: "18pt", 2: "14pt", 3: "12pt", 4: "11pt", 5: "11pt", 6: "11pt"}


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


class _Styles:
    """The document's named styles (headings, quotes, code) and its text styles, each
    made once when first used."""

    def __init__(self, odt: Any) -> None:
        self.odt = odt
        self.spans: dict[tuple[Any, ...], Any] = {}
        self.aligned: dict[str, Any] = {}  # a table cell's paragraph: right or centre
        self.headings = {}
        for level, size in HEADING_SIZES.items():
            heading = Style(name=f"Heading {level}", family="paragraph", defaultoutlinelevel=level)
            heading.addElement(ParagraphProperties(margintop="0.35cm", marginbottom="0.2cm"))
            heading.addElement(TextProperties(fontsize=size, fontweight="bold"))
            odt.styles.addElement(heading)
            self.headings[level] = heading
        self.body = self._paragraph("Text body", marginbottom="0.2cm")
        self.quote = self._paragraph(
            "Quotations", marginleft="0.6cm", borderleft="1.5pt solid #b4b4b4", paddingleft="0.2cm"
        )
        self.code = self._paragraph(
            "Preformatted Text", text={"fontname": MONO, "fontsize": "8.5pt"}, marginleft="0.2cm"
        )
        self.evidence = self._paragraph("Evidence", marginleft="0.6cm", margintop="0.15cm")
        self.small = self._paragraph("Source details", text={"fontsize": "8.5pt", "color": MUTED})
        self.rule = self._paragraph("Horizontal Line", borderbottom="0.5pt solid #aaaaaa")
        self.entry = self._paragraph("Source", margintop="0.3cm")
        odt.fontfacedecls.addElement(
            FontFace(name=MONO, fontfamily=MONO, fontfamilygeneric="modern", fontpitch="fixed")
        )
        self.lists = self._list_style("Ordered", True), self._list_style("Bulleted", False)
        self.cell = Style(name="Cell", family="table-cell")
        self.cell.addElement(TableCellProperties(border="0.5pt solid #aaaaaa", padding="0.08cm"))
        odt.automaticstyles.addElement(self.cell)

    def _paragraph(self, name: str, text: dict[str, str] | None = None, **layout: str) -> Any:
        style = Style(name=name, family="paragraph")
        style.addElement(ParagraphProperties(**layout))
        if text:
            style.addElement(TextProperties(**text))
        self.odt.styles.addElement(style)
        return style

    def _list_style(self, name: str, ordered: bool) -> Any:
        style = ListStyle(name=name)
        for level in range(1, 11):
            if ordered:
                made = ListLevelStyleNumber(level=level, numformat="1", numsuffix=".")
            else:
                made = ListLevelStyleBullet(level=level, bulletchar="•")
            indent = f"{0.6 * level:.1f}cm"
            made.addElement(ListLevelProperties(spacebefore=indent, minlabelwidth="0.5cm"))
            style.addElement(made)
        self.odt.styles.addElement(style)
        return style

    def span(
        self,
        *,
        bold: bool = False,
        italic: bool = False,
        code: bool = False,
        colour: str | None = None,
        size: str | None = None,
        underline: bool = False,
    ) -> Any:
        key = (bold, italic, code, colour, size, underline)
        if key not in self.spans:
            properties: dict[str, str] = {}
            if bold:
                properties["fontweight"] = "bold"
            if italic:
                properties["fontstyle"] = "italic"
            if code:
                properties.update(fontname=MONO, fontsize="9pt")
            if colour:
                properties["color"] = colour
            if size:
                properties["fontsize"] = size
            if underline:
                properties.update(textunderlinestyle="solid", textunderlinewidth="auto")
            style = Style(name=f"T{len(self.spans) + 1}", family="text")
            style.addElement(TextProperties(**properties))
            self.odt.automaticstyles.addElement(style)
            self.spans[key] = style
        return self.spans[key]


class _Writer:
    def __init__(self, odt: Any, doc: Document) -> None:
        self.odt = odt
        self.doc = doc
        self.styles = _Styles(odt)
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
            explained = (
                "Each source with the evidence behind its citations: the span of what was "
                "read that each cited sentence rests on."
            )
            self.paragraph([Run(explained)], style=self.styles.small)
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
            return [self.items(turn, block)]
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

    def items(self, turn: Turn, block: Block) -> Any:
        ordered, bulleted = self.styles.lists
        made = List(stylename=ordered if block.ordered else bulleted)
        for position, item in enumerate(block.items):
            start = {"startvalue": block.start} if block.ordered and position == 0 else {}
            entry = ListItem(**start)
            for child in item:
                for element in self.block(turn, child):
                    entry.addElement(element)
            if not item:
                entry.addElement(self.para([]))
            made.addElement(entry)
        return made

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
                if block.align[column] in ("right", "center"):
                    paragraph.setAttribute("stylename", self._aligned(block.align[column]))
                cell.addElement(paragraph)
                row.addElement(cell)
            (head if at < block.header else table).addElement(row)
        return table

    def _aligned(self, align: str) -> Any:
        if align not in self.styles.aligned:
            style = Style(name=f"Aligned {align}", family="paragraph")
            style.addElement(ParagraphProperties(textalign="end" if align == "right" else align))
            self.odt.automaticstyles.addElement(style)
            self.styles.aligned[align] = style
        return self.styles.aligned[align]

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
