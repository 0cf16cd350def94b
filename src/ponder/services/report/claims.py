"""A Markdown text cut into the claims the citation check judges: the sentences of
paragraphs and list items, and table rows, with their offsets. Headings, code, quotations
and notes claim nothing; nor do questions, nor a bare address.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ponder.services.text.citations import prose_only

ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)")
_HEADING = re.compile(r"^[ \t]*#{1,6}\s")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}")
_NOTE = re.compile(r"^([*_]).+\1$")
# Where a sentence ends: . ! ? (and closing quotes, brackets or emphasis), then citations.
_END = re.compile(r"[.!?][\"'”’)*_]*((?:\s*\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\])*)(?=\s|$)")
# A sentence that is only an address ("https://…", "www.…", "a@b.org"), citations aside:
# it names where, and claims nothing a passage could hold (a weak model invents them).
_ADDRESS_ONLY = re.compile(
    r"\s*<?(?:[a-z][a-z0-9+.-]*://\S*|www\.\S+|[^\s@]+@[^\s@]+)>?[.,;:]?"
    r"(?:\s*\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\])*\s*[.,;:]?\s*",
    re.IGNORECASE,
)
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|fig|no|mr|mrs|dr|st)|\b[A-Z])\.$")


@dataclass(frozen=True)
class Claim:
    start: int
    end: int
    text: str  # the sentence as written, citations included
    kind: str  # "sentence" or "row"


def claims(text: str) -> list[Claim]:
    """The sentences of paragraphs and list items, and table rows, with their offsets."""
    found: list[Claim] = []
    fenced = False
    header_row = False
    position = 0
    for line in text.split("\n"):
        start, position = position, position + len(line) + 1
        stripped = line.strip()
        if _FENCE_LINE.match(line):
            fenced = not fenced
            continue
        # A quotation is the source's words, an italic line without citations a note.
        quoted = stripped.startswith(">") or (_NOTE.match(stripped) and "[" not in stripped)
        if fenced or quoted or not stripped or _HEADING.match(line) or _TABLE_RULE.match(line):
            header_row = False
            continue
        if stripped.startswith("|"):
            if header_row or not _is_table_body(text, start):
                header_row = True
                continue
            found.append(Claim(start, start + len(line), line, "row"))
            continue
        item = ITEM.match(line)
        offset = start + (item.end() if item else len(line) - len(line.lstrip()))
        found += _sentences(text[offset : start + len(line)], offset)
    return found


def _is_table_body(text: str, start: int) -> bool:
    """A table row below the rule line (the row above the rule is the header)."""
    before = text[:start].rstrip("\n").rsplit("\n", 1)[-1]
    return before.strip().startswith("|")


def _sentences(line: str, offset: int) -> list[Claim]:
    """The sentences of a line; questions and bare addresses claim nothing, so they are
    left out. Inline code ends no sentence: "`try: ... finally: ...`" is one statement's
    code."""
    found: list[Claim | None] = []
    begin = 0
    prose = prose_only(line)
    for match in _END.finditer(prose):
        if _ABBREVIATION.search(prose[: match.start() + 1]):
            continue
        end = match.end()
        if line[begin:end].strip() and line[match.start()] != "?":
            found.append(_claim(line, begin, end, offset))
        begin = end
    if line[begin:].strip():
        found.append(_claim(line, begin, len(line), offset))
    return [claim for claim in found if claim is not None]


def _claim(line: str, begin: int, end: int, offset: int) -> Claim | None:
    while begin < end and line[begin] in " \t":
        begin += 1
    if _ADDRESS_ONLY.fullmatch(line[begin:end]):
        return None
    return Claim(offset + begin, offset + end, line[begin:end], "sentence")
