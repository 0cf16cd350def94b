"""The ODT export's styles (odt.py): headings, quotes, code, evidence and the text styles
of runs, each made once, as LibreOffice names its own where it has one."""

from __future__ import annotations

from typing import Any

from odf.style import (
    FontFace,
    ListLevelProperties,
    ParagraphProperties,
    Style,
    TableCellProperties,
    TextProperties,
)
from odf.text import ListLevelStyleBullet, ListLevelStyleNumber, ListStyle

LINK_COLOUR = "#1f4e8c"
MUTED = "#5f5f5f"
MONO = "Liberation Mono"  # LibreOffice's own; any fixed-pitch font stands in elsewhere
HEADING_SIZES = {1: "18pt", 2: "14pt", 3: "12pt", 4: "11pt", 5: "11pt", 6: "11pt"}


class OdtStyles:
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

    def aligned_cell(self, align: str) -> Any:
        """A table cell's paragraph aligned right or centred, as the Markdown table says."""
        if align not in self.aligned:
            style = Style(name=f"Aligned {align}", family="paragraph")
            style.addElement(ParagraphProperties(textalign="end" if align == "right" else align))
            self.odt.automaticstyles.addElement(style)
            self.aligned[align] = style
        return self.aligned[align]
