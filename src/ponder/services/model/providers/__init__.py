"""How ponder reaches a model, one strategy per SDK: Ollama's own API (langchain-ollama,
:mod:`.ollama`) or the OpenAI chat API that LM Studio, llama-server, vLLM and LocalAI
speak (langchain-openai, :mod:`.openai`). ``provider_for`` is the one place that chooses;
everything else asks the strategy it was given."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from ponder.services.model.providers.ollama import OllamaProvider
from ponder.services.model.providers.openai import OpenAIProvider
from ponder.settings.configuration import Configuration


class Provider(Protocol):
    """What the LLM layer needs of an SDK, for one model."""

    server_kind: str  # how a message names the server ("Ollama", …)
    where_to_look: str  # where to look when a model keeps failing

    def hosts(self) -> list[str]:
        """The servers to call, in the order given."""
        ...

    def client(self, url: str) -> Any:
        """The LangChain chat model for ``url``, made once and reused (its connections too)."""
        ...

    def errors(self, url: str) -> AbstractContextManager[None]:
        """The SDK's failures as ponder's errors: fatal ones their own, the rest
        ModelCallError (worth a retry)."""
        ...

    def schema_options(self, json_schema: dict[str, Any]) -> dict[str, Any]:
        """A structured call's keyword arguments that constrain the answer to the schema."""
        ...

    def sampling(self, temperature: float, rejected: int) -> dict[str, Any]:
        """A text call's sampling after ``rejected`` rejected attempts: the SDK's own
        penalty against repeating oneself, and another seed, once one was rejected."""
        ...

    def served_models(self, url: str, timeout: float) -> list[str]:
        """The models the server at ``url`` has (raises when it does not answer)."""
        ...


def provider_for(config: Configuration, model: str, api_key: str | None = None) -> Provider:
    """The strategy ``config.provider`` names, for ``model``; ``api_key`` is the OpenAI
    API server's (``OPENAI_API_KEY``, read at an edge), which Ollama never gets."""
    if config.provider == "openai":
        return OpenAIProvider(config, model, api_key)
    return OllamaProvider(config, model)
