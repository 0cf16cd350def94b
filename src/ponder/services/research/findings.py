"""A finding's text: the passages one query read of one source, joined by a separator.

Each passage is known by a digest of its words, so that the loop shows the model a passage
once (``web_research`` leaves out the passages already summarized; ``summarize_sources``
records the ones it showed whole).
"""

from __future__ import annotations

import hashlib

PIECE_SEPARATOR = "\n…\n"  # between the passages of one finding


def finding_pieces(text: str) -> list[str]:
    """The passages a finding's text is made of."""
    return [piece.strip() for piece in text.split(PIECE_SEPARATOR) if piece.strip()]


def piece_digest(piece: str) -> str:
    """A passage's identity, whatever its spacing."""
    return hashlib.sha1(" ".join(piece.split()).encode()).hexdigest()[:16]
