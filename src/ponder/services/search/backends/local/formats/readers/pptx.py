"""PowerPoint decks (PPTX): each slide's text and tables, then its speaker notes, in the
deck's order; a passage is located by its slide. Title, authors and date from the core
properties, else the first slide's first line."""

from __future__ import annotations

from xml.etree.ElementTree import Element

from ponder.services.search.backends.local.formats.container import Zipped
from ponder.services.search.backends.local.formats.document import (
    Document,
    SkipFile,
    joined,
    paragraphs,
)
from ponder.services.search.backends.local.formats.markup import local
from ponder.services.search.backends.local.formats.ooxml import (
    core_properties,
    main_part,
    related,
    relationships,
)
from ponder.services.search.backends.local.formats.registry import Reader, register

MAX_SLIDES = 2_000


def read_pptx(data: bytes, name: str) -> Document:
    package = Zipped(data, "PPTX")
    deck = main_part(package, "ppt/presentation.xml")
    slides = _slide_order(package, deck)
    if not slides:
        raise SkipFile("the PPTX has no slides")
    texts = []
    for slide in slides[:MAX_SLIDES]:
        lines = _lines(package.xml(slide))
        for notes in related(package, slide, "notesSlide"):
            spoken = _lines(package.xml(notes), notes=True)
            if spoken:
                lines.append("Notes: " + "\n".join(spoken))
        texts.append(paragraphs(lines))
    text, starts = joined(texts)
    if not text.strip():
        raise SkipFile("the PPTX has no text")
    title, authors, date = core_properties(package)
    first = next((t.split("\n", 1)[0] for t in texts if t.strip()), "")
    return Document(title or first[:300] or name, text, starts, "slide", authors, date)


def _slide_order(package: Zipped, deck: str) -> list[str]:
    """The slides as the deck lists them (their file names need not say their order)."""
    rels = relationships(package, deck)
    order = []
    for element in package.xml(deck).iter():
        if local(element.tag) == "sldId":
            rid = next((v for k, v in element.attrib.items() if local(k) == "id" and k != "id"), "")
            kind, target = rels.get(rid, ("", ""))
            if kind == "slide" and package.has(target):
                order.append(target)
    return order


def _lines(slide: Element, notes: bool = False) -> list[str]:
    """Each text paragraph of a slide's shapes, and each table row as `cell | cell`. In
    notes, the slide's image and number placeholders are left out."""
    lines = []
    for shape in slide.iter():
        kind = local(shape.tag)
        if kind == "sp" and not (notes and _placeholder(shape) in ("sldNum", "sldImg", "hdr")):
            lines += [_paragraph(p) for p in _body_paragraphs(shape)]
        elif kind == "tbl":
            for row in shape.iter():
                if local(row.tag) == "tr":
                    cells = [_cell(cell) for cell in row if local(cell.tag) == "tc"]
                    lines.append(" | ".join(cells))
    return [line for line in lines if line.strip()]


def _body_paragraphs(shape: Element) -> list[Element]:
    return [p for p in shape.iter() if local(p.tag) == "p"]


def _placeholder(shape: Element) -> str:
    for element in shape.iter():
        if local(element.tag) == "ph":
            return element.get("type") or "body"
    return ""


def _paragraph(paragraph: Element) -> str:
    parts = []
    for piece in paragraph.iter():
        kind = local(piece.tag)
        if kind == "t":
            parts.append(piece.text or "")
        elif kind == "br":
            parts.append("\n")
    return "".join(parts)


def _cell(cell: Element) -> str:
    texts = (_paragraph(p) for p in cell.iter() if local(p.tag) == "p")
    return " ".join(" ".join(t.split()) for t in texts if t.strip())


register(
    Reader(
        "PowerPoint (PPTX)",
        (".pptx",),
        read_pptx,
        library="ponder's own reader of the documented format (ECMA-376), under the container "
        "limits; python-pptx loads every part, images and media included, before one is read",
        keeps="each slide's text and tables in the deck's order, its speaker notes; passages "
        "are located by slide; title, authors and date from the core properties",
        drops="images, charts' data, layout, animations, and the masters' placeholder text",
    )
)
