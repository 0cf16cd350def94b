"""What a model server serves, asked through the same SDKs the LLM layer calls it with
(``ollama``, ``openai``) and their errors turned into ponder's the same way."""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

from ponder.config import Configuration
from ponder.errors import OllamaUnavailableError
from ponder.ollama_host import one_host_for_the_ollama_client
from ponder.services.model.llm import openai_errors
from ponder.services.web.tls import shared_ssl_context


@dataclass(frozen=True)
class ModelServer:
    """A model server that answered, and the models it has."""

    url: str
    kind: str  # "Ollama" or "An OpenAI-compatible server"
    models: list[str]


def model_server(config: Configuration, url: str, timeout: float = 5.0) -> ModelServer:
    """Ask the server at ``url`` for its models. Raises OllamaUnavailableError (or, with
    provider=openai, ModelServerUnavailableError / ModelServerRefusedError)."""
    if config.provider == "openai":
        return _openai_server(url, timeout)
    return _ollama_server(url, timeout)


def _ollama_server(url: str, timeout: float) -> ModelServer:
    one_host_for_the_ollama_client()
    import ollama

    client = ollama.Client(host=url, timeout=timeout, verify=shared_ssl_context())
    try:
        listed = client.list()
    except (ConnectionError, httpx.HTTPError, ollama.ResponseError):
        raise OllamaUnavailableError(url) from None
    return ModelServer(url, "Ollama", sorted(str(m.model) for m in listed.models))


def _openai_server(url: str, timeout: float) -> ModelServer:
    import openai

    client = openai.OpenAI(
        base_url=url,
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        timeout=timeout,
        max_retries=0,
    )
    with openai_errors("", url, timeout):
        served = [str(model.id) for model in client.models.list()]
    return ModelServer(url, "An OpenAI-compatible server", served)
