"""Arranging pages of the Python documentation into a report, as a capable model would.

Every sentence, list item, table row and code block is the documentation's own; what is
chosen here, by a seeded RNG, is which related pages and sections a report draws on and
how it lays them out: a title (sometimes repeated as the first heading), an uncited
introduction (sometimes over 200 words), an outline whose items come back as headings, a
table "at a glance", one sub-heading repeated under several sections, prose or bullets,
the pages' own lists, tables and code, and a closing list that repeats key sentences.
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

from ponder.testing.prose.model import Excerpt, GeneratedReport, Part, Unit, Window, sentences
from ponder.testing.pydocs import Block, Page, Section, read_page

MIN_ANCHOR_WORDS = 900  # HOWTOs and tutorial chapters with at least this much prose
# Prose that reads like a citation ("[1, 2]") could not be told from one: left out.
_NUMBERS_IN_BRACKETS = re.compile(r"\[\s*\d{1,3}\s*(?:[,;]\s*\d{1,3}\s*)*\]")
_SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)*\.?\s+")
_SOURCES_LIKE = re.compile(r"(?i)^(sources|references|bibliography|works cited)$")
SUBHEADINGS = ("Example", "In practice", "How it works", "Example usage", "Key details")
OUTLINE_HEADINGS = ("Overview", "Contents", "What this report covers")


def generate(root: Path, seed: int, min_words: int = 600, max_words: int = 2500) -> GeneratedReport:
    """Report number ``seed``: 3-6 related pages, about ``min_words``-``max_words`` words."""
    rng = random.Random(seed)
    pages = related_pages(root, rng.choice(anchors(root)), rng, rng.randint(3, 6))
    excerpts = [Excerpt(page) for page in pages]
    target = rng.randint(min_words, max_words)
    intro = intro_units(excerpts, rng.randint(210, 320) if rng.random() < 0.35 else 60)
    shares = [2] + [1] * (len(pages) - 1)  # the page the report starts from weighs double
    body = max(target - sum(len(u.text.split()) for u in intro), 150)
    for excerpt, share in zip(excerpts, shares, strict=True):
        budget = body * share // sum(shares)
        excerpt.windows += windows(excerpt.page, rng, budget)
    headings = [w.heading for e in excerpts for w in e.windows if w.level > 1]
    title = heading_text(pages[0].title)
    if len(headings) >= 2 and rng.random() < 0.6:
        title = f"{title}: {headings[0]} and {headings[1]}"
    parts = [Part("heading", text=title, level=1)]
    if rng.random() < 0.3:
        parts.append(Part("heading", text=title, level=2))
    if intro:
        parts.append(Part("para", intro))
    parts += arranged_body(excerpts, rng)
    subjects = [heading_text(e.subject) for e in excerpts]
    topic = ", ".join(subjects[:-1]) + " and " + subjects[-1]
    return GeneratedReport(seed, topic, title, excerpts, parts)


@functools.cache
def anchors(root: Path) -> list[str]:
    names = sorted(
        f"{folder}/{path.stem}"
        for folder in ("howto", "tutorial")
        for path in (root / folder).glob("*.html")
        if path.stem != "index"
    )
    return [n for n in names if read_page(root, n).words() >= MIN_ANCHOR_WORDS]


def related_pages(root: Path, anchor: str, rng: random.Random, count: int) -> list[Page]:
    """The anchor and up to ``count - 1`` pages it links to (then chapters like it)."""
    first = read_page(root, anchor)
    linked = [n for n in first.links if (root / f"{n}.html").is_file()]
    others = [n for n in anchors(root) if n != anchor]
    rng.shuffle(linked)
    rng.shuffle(others)
    chosen = [first]
    for name in linked + others:
        page = read_page(root, name)
        if len(chosen) == count:
            break
        if page.name not in {p.name for p in chosen} and _has_prose(page):
            chosen.append(page)
    return chosen


def heading_text(heading: str) -> str:
    """A heading without its section number ("5.1. More on Lists")."""
    return _SECTION_NUMBER.sub("", heading).strip()


def _usable(block: Block) -> bool:
    text = " ".join(block.lines)
    if block.kind == "code":
        return text.count("\n") < 30
    if block.kind == "table":
        return 3 <= len(block.lines) <= 10 and not _NUMBERS_IN_BRACKETS.search(text)
    return not _NUMBERS_IN_BRACKETS.search(text) and not text.startswith("Source code:")


def _prose_blocks(section: Section) -> list[Block]:
    return [b for b in _readable(section.blocks) if b.kind == "para" and len(b.lines[0]) > 40]


def _has_prose(page: Page) -> bool:
    return sum(len(_prose_blocks(s)) for s in _body_sections(page) if s.level > 1) >= 3


def intro_units(excerpts: list[Excerpt], words: int) -> list[Unit]:
    """About ``words`` of the pages' opening paragraphs, uncited, as an introduction."""
    units: list[Unit] = []
    for index, excerpt in enumerate(excerpts):
        top = excerpt.page.sections[0] if excerpt.page.sections else None
        blocks = _prose_blocks(top) if top and top.level == 1 else []
        blocks = [b for b in blocks if not b.lines[0].endswith(":")]  # it leads into a list
        taken = []
        for block in blocks:
            if sum(len(u.text.split()) for u in units) >= words:
                break
            taken.append(block)
            units += [Unit(s, index, None) for s in sentences(block.lines[0])]
        if taken:
            excerpt.windows.append(Window(excerpt.page.title, 1, taken))
    return units


def windows(page: Page, rng: random.Random, budget: int) -> list[Window]:
    """Runs of consecutive blocks from up to three sections, about ``budget`` words."""
    candidates = [s for s in _body_sections(page) if s.level > 1 and _prose_blocks(s)]
    rng.shuffle(candidates)
    chosen: list[tuple[int, Window]] = []
    used = 0
    for section in candidates[:3]:
        blocks = _readable(section.blocks)
        start = next(i for i, b in enumerate(blocks) if b.kind == "para")
        taken: list[Block] = []
        for block in blocks[start:]:
            leads_in = bool(taken) and taken[-1].kind == "para" and taken[-1].lines[0][-1] == ":"
            if used >= budget and taken and not leads_in:
                break
            taken.append(block)
            used += 0 if block.kind == "code" else len(" ".join(block.lines).split())
        order = page.sections.index(section)
        chosen.append((order, Window(heading_text(section.heading), section.level, taken)))
        if used >= budget:
            break
    return [window for _, window in sorted(chosen, key=lambda pair: pair[0])]


def _body_sections(page: Page) -> list[Section]:
    """The page's sections without its references (a "References" section and those
    under it): lists of links, not prose a report would restate."""
    kept: list[Section] = []
    inside: int | None = None  # the level of the references section we are in
    for section in page.sections:
        if inside is not None and section.level > inside:
            continue
        inside = section.level if _SOURCES_LIKE.match(heading_text(section.heading)) else None
        if inside is None:
            kept.append(section)
    return kept


def _readable(blocks: list[Block]) -> list[Block]:
    """The usable blocks; a paragraph that leads into ("…like this:") a block left out goes
    with it."""
    kept: list[Block] = []
    for block in blocks:
        if _usable(block):
            kept.append(block)
        elif kept and kept[-1].kind == "para" and kept[-1].lines[0].endswith(":"):
            kept.pop()
    if kept and kept[-1].kind == "para" and kept[-1].lines[0].endswith(":"):
        kept.pop()  # what it led into is outside the section
    return kept


def arranged_body(excerpts: list[Excerpt], rng: random.Random) -> list[Part]:
    """Outline, table at a glance, the sections, key takeaways: each when the RNG says."""
    by_page = rng.random() < 0.4  # '## page title' over '### section' headings
    sub = rng.choice(SUBHEADINGS) if rng.random() < 0.5 else None
    sections: list[Part] = []
    tops: list[str] = []
    glance: list[Unit] = []
    for index, excerpt in enumerate(excerpts):
        body = [w for w in excerpt.windows if w.level > 1]
        if by_page and body:
            tops.append(heading_text(excerpt.page.title))
            sections.append(Part("heading", text=tops[-1], level=2))
        for window in body:
            level = 3 if by_page else 2
            tops += [] if by_page else [window.heading]
            sections.append(Part("heading", text=window.heading, level=level))
            own = section_parts(window, index, rng, sub, level + 1)
            sections += own
            first = next((u for p in own if p.kind == "para" for u in p.units), None)
            if first is not None:
                glance.append(Unit(f"{window.heading}\t{first.text}", index, index))
    parts: list[Part] = []
    if len(tops) >= 3 and rng.random() < 0.4:
        parts.append(Part("heading", text=rng.choice(OUTLINE_HEADINGS), level=2))
        parts.append(Part("outline", text="\n".join(tops)))
    if len(glance) >= 3 and rng.random() < 0.35:
        parts.append(Part("heading", text="At a glance", level=2))
        parts.append(Part("table", glance, header=("Topic", "In brief")))
    parts += sections
    cited = [u for p in sections if p.kind == "para" for u in p.units if len(u.text.split()) >= 8]
    if len(cited) >= 6 and rng.random() < 0.3:
        again = rng.sample(cited, rng.randint(3, 5))
        parts.append(Part("heading", text="Key takeaways", level=2))
        parts.append(Part("bullets", [Unit(u.text, u.page, u.page) for u in again]))
    return parts


def section_parts(
    window: Window, index: int, rng: random.Random, sub: str | None, sub_level: int
) -> list[Part]:
    """One section's blocks: paragraphs (sometimes as bullets), lists, tables and code, with
    the report's repeated sub-heading (if any) before its first code, list or table."""
    parts: list[Part] = []
    for block in window.blocks:
        if block.kind == "para":
            units = [Unit(s, index, index) for s in sentences(block.lines[0])]
            bullets = len(units) > 2 and rng.random() < 0.2
            parts.append(Part("bullets" if bullets else "para", units))
            continue
        if sub and not any(p.kind == "heading" for p in parts):
            leads_in = parts and parts[-1].kind == "para" and parts[-1].units[-1].text[-1] == ":"
            parts.insert(
                len(parts) - 1 if leads_in else len(parts),
                Part("heading", text=sub, level=sub_level),
            )
        if block.kind == "items":
            units = [Unit(item, index, index) for item in block.lines]
            parts.append(Part("numbers" if block.ordered else "bullets", units))
        elif block.kind == "table":
            rows = [Unit(row, index, index) for row in block.lines[1:]]
            parts.append(Part("table", rows, header=tuple(block.lines[0].split("\t"))))
        else:
            parts.append(Part("code", text=block.lines[0], language=block.language))
    return parts
