"""What the rig's ``/api/embed`` answers with: a deterministic embedder, or the tiny model.

``TrigramEmbedder`` hashes each word's character trigrams into a fixed number of
dimensions (the subword idea of fastText, without training): texts that share word pieces
are near, so "colour" finds "color" and "indexing" finds "indexer" although BM25's stemmer
matches neither. It is exact and instant, which makes fusion testable; it has no notion
of meaning, and claims none.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Protocol

EMBED_MODEL = "trigram-embed"  # the name the rig serves the TrigramEmbedder under
TINY_EMBED_MODEL = "gemma3-embed"  # and the tiny model's embeddings (ponder.testing.tiny)


class TextEmbedder(Protocol):
    def embed(self, texts: list[str]) -> list[list[float]]: ...


class TrigramEmbedder:
    def __init__(self, dimensions: int = 256) -> None:
        self.dimensions = dimensions

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in re.findall(r"[^\W_]+", text.lower()):
            padded = f"<{word}>"
            for i in range(len(padded) - 2):
                digest = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=8).digest()
                slot = int.from_bytes(digest[:4], "little") % self.dimensions
                vector[slot] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]
