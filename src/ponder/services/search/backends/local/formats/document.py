"""What a reader makes of a file: its text and what the file says of itself, or why not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

MAX_TEXT_CHARS = 5_000_000  # kept from one file: a long book's worth, not a bomb's


class SkipFile(Exception):
    """A file that cannot be indexed; the message says why (shown as "Skipped PATH: why")."""


@dataclass
class Document:
    """A file's text, with the title, authors and date its own metadata gives.

    ``page_starts`` are where each of its parts begins in ``text`` (``part`` names them:
    the pages of a PDF, the slides of a deck, the sheets of a workbook), so a passage is
    located as "slide 3". ``date`` is ISO 8601 (``2021``, ``2021-03-04``) or None.
    """

    title: str
    text: str
    page_starts: list[int] = field(default_factory=list)
    part: str = "page"
    authors: list[str] = field(default_factory=list)
    date: str | None = None


def joined(parts: Sequence[str], separator: str = "\n\n") -> tuple[str, list[int]]:
    """Parts of a file as one text, and where each starts in it (empty parts kept, so
    part numbers stay those of the file), cut at MAX_TEXT_CHARS."""
    starts: list[int] = []
    pieces: list[str] = []
    offset = 0
    for part in parts:
        if offset >= MAX_TEXT_CHARS:
            break
        starts.append(offset)
        pieces.append(part[: MAX_TEXT_CHARS - offset])
        offset += len(pieces[-1]) + len(separator)
    return separator.join(pieces), starts


def paragraphs(blocks: Sequence[str]) -> str:
    """Blocks of text as paragraphs: each stripped, empty ones left out."""
    return "\n\n".join(block.strip() for block in blocks if block.strip())


def clean_title(title: object, limit: int = 300) -> str:
    """A title from a file's metadata, whitespace collapsed; '' when it is no title (none,
    too long, or a word processor's placeholder)."""
    if not isinstance(title, str):
        return ""
    text = " ".join(title.split())
    if len(text) > limit or text.lower() in _PLACEHOLDERS:
        return ""
    return text


_PLACEHOLDERS = {"untitled", "untitled document", "title", "document", "presentation"}
