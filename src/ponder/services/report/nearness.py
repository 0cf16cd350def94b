"""How near in meaning each source is to the question, when an embedding model is set.

The extractive report chooses what to quote by how well what was read of each source
matches the question's words (BM25 over those few passages). A page that answers in other
words shares few: for "Is there an equivalent to C's onexit()?", atexit's page speaks of
functions "executed upon normal interpreter termination". With semantic search on
(``embed_model``), the question and what was read of each source are embedded, and the
sources to quote are chosen by meaning beside words (``extractive.quoted_sources``).
Only an extractive report asks for it, so a model whose report is kept costs nothing here.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence

from ponder.core.errors import PonderError
from ponder.core.sources import Source
from ponder.services.model.llm import Warn
from ponder.services.report.extractive import source_text
from ponder.services.search.backends.local.embeddings import Embedder

# What is embedded of a source: its title and the start of what was read, about the
# 512 tokens an embedding model such as multilingual-e5-small reads at most.
SOURCE_CHARS = 2000


async def nearness(
    embedder: Embedder, topic: str, sources: Sequence[Source], warn: Warn
) -> dict[int, float]:
    """Each source's cosine similarity to ``topic``, by source number; {} (and one warning)
    when the model cannot embed: the report is then chosen by words alone."""
    texts = [(s["title"], source_text(s)[:SOURCE_CHARS]) for s in sources]
    try:
        question = await asyncio.to_thread(embedder.query, topic)
        vectors = await asyncio.to_thread(embedder.documents, texts)
    except PonderError as exc:
        warn(f"Could not embed the sources ({exc}); the report's quotes are chosen by words.")
        return {}
    return {s["number"]: cosine(question, v) for s, v in zip(sources, vectors, strict=True)}


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0
