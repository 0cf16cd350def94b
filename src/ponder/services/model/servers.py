"""What a model server serves, asked through the same SDKs the LLM layer calls it with
(``ollama``, ``openai``) and their errors turned into ponder's the same way."""

from __future__ import annotations

from dataclasses import dataclass

from ponder.services.model.providers import provider_for
from ponder.settings.configuration import Configuration


@dataclass(frozen=True)
class ModelServer:
    """A model server that answered, and the models it has."""

    url: str
    kind: str  # "Ollama" or "An OpenAI-compatible server"
    models: list[str]


def model_server(
    config: Configuration, url: str, timeout: float = 5.0, api_key: str | None = None
) -> ModelServer:
    """Ask the server at ``url`` for its models (``api_key``: see :func:`provider_for`).
    Raises OllamaUnavailableError (or, with provider=openai, ModelServerUnavailableError /
    ModelServerRefusedError)."""
    provider = provider_for(config, model="", api_key=api_key)
    return ModelServer(url, provider.server_kind, provider.served_models(url, timeout))
