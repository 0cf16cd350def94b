"""Errors a user can hit. Each message says what to do next.

The CLI maps each class to one line and an exit code; tests see the real exception.
"""

from __future__ import annotations

from ponder.redact import redact


class PonderError(Exception):
    """Base class for every error ponder raises on purpose.

    Its message never shows a URL's credentials (user:password@, a token in the query).
    """

    exit_code = 1

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class ConfigurationError(PonderError, ValueError):
    """A configuration key or value is invalid."""

    exit_code = 2


class InvalidInputError(PonderError, ValueError):
    """The question or another input cannot be researched as given."""

    exit_code = 2


class OllamaUnavailableError(PonderError):
    """Ollama cannot be reached at the configured URL."""

    exit_code = 3

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        where = f"at any of {base_url.replace(',', ', ')}" if "," in base_url else f"at {base_url}"
        super().__init__(
            f"Ollama is not running {where} — start it with `ollama serve` "
            "or set OLLAMA_HOST (or --ollama-url) to where it runs."
        )


class ModelServerUnavailableError(OllamaUnavailableError):
    """The OpenAI-compatible model server (provider=openai) cannot be reached."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        PonderError.__init__(
            self,
            f"No model server answers at {base_url} — start it (LM Studio: Developer → Start "
            "Server; llama.cpp: `llama-server -m MODEL.gguf`) or set --openai-url to where it "
            "runs.",
        )


class ModelServerRefusedError(OllamaUnavailableError):
    """The OpenAI-compatible model server refused the key (HTTP 401/403)."""

    def __init__(self, base_url: str, status: int) -> None:
        self.base_url = base_url
        PonderError.__init__(
            self,
            f"The model server at {base_url} refused the request (HTTP {status}) — set "
            "OPENAI_API_KEY to the key it expects.",
        )


class ModelNotFoundError(PonderError):
    """The configured model is not pulled on the Ollama server."""

    exit_code = 4

    def __init__(self, model: str, base_url: str, option: str = "--model") -> None:
        self.model = model
        self.base_url = base_url
        super().__init__(
            f"Model '{model}' is not available on the Ollama server at {base_url} — "
            f"run `ollama pull {model}` or choose another with {option}."
        )


class ModelCallError(PonderError):
    """The model kept failing (errors, timeouts) after bounded retries."""

    exit_code = 5


class SearchError(PonderError):
    """A search backend is misconfigured or cannot be used at all."""

    exit_code = 6


class RunNotFoundError(PonderError):
    """No checkpointed run has the given id."""

    exit_code = 2

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        super().__init__(f"No run with id '{thread_id}' — list runs with `ponder runs`.")


class StorageError(PonderError):
    """A data, cache or checkpoint file cannot be written."""

    exit_code = 7


class CallerRefusedError(ConfigurationError):
    """A caller of a shared server set what only the server's operator may set."""
