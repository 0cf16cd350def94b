"""The OpenAI chat API (LM Studio, llama.cpp's llama-server, vLLM, LocalAI) through
langchain-openai (and the ``openai`` SDK under it).

A structured call's schema goes in ``response_format``; the API cannot set the context
window, so ``num_ctx`` only fits prompts to the one the server loaded the model with.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from ponder.core.errors import (
    ModelCallError,
    ModelNotFoundError,
    ModelServerRefusedError,
    ModelServerUnavailableError,
)
from ponder.settings.configuration import Configuration

# Local servers need no key, but the SDK refuses to start without one.
NO_KEY = "not-needed"


class OpenAIProvider:
    server_kind = "An OpenAI-compatible server"
    where_to_look = "the model server"

    def __init__(self, config: Configuration, model: str, api_key: str | None = None) -> None:
        """``api_key``: the server's key. A credential, not a setting: it stays the OpenAI
        SDK's own ``OPENAI_API_KEY``, read at an edge, and never enters Configuration, so it
        cannot end up in run history, checkpoints or the schema LangGraph Studio shows
        (docs/deploy.md)."""
        self.config = config
        self.model = model
        self.api_key = api_key or NO_KEY
        self._clients: dict[str, Any] = {}

    def hosts(self) -> list[str]:
        return [self.config.openai_base_url]

    def client(self, url: str) -> Any:
        if url not in self._clients:
            import openai
            from langchain_openai import ChatOpenAI  # heavy import, only when used

            from ponder.services.web.tls import shared_ssl_context

            # The SDK's own HTTP types: openai 3 runs on httpx2, whose client and timeout
            # are not httpx's, and langchain-openai follows whichever the SDK uses.
            timeout = openai.Timeout(self.config.request_timeout, connect=10.0)
            self._clients[url] = ChatOpenAI(
                model=self.model,
                base_url=url,
                api_key=self.api_key,  # type: ignore[arg-type]
                temperature=self.config.temperature,
                max_completion_tokens=self.config.num_predict,
                timeout=timeout,
                max_retries=0,  # ponder's own retries and fallbacks apply
                stream_usage=True,
                http_async_client=openai.DefaultAsyncHttpxClient(
                    timeout=timeout, verify=shared_ssl_context()
                ),
            )
        return self._clients[url]

    def errors(self, url: str) -> contextlib.AbstractContextManager[None]:
        return openai_errors(self.model, url, self.config.request_timeout)

    def schema_options(self, json_schema: dict[str, Any]) -> dict[str, Any]:
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(json_schema.get("title") or "answer"))
        schema = {"name": name, "schema": json_schema, "strict": False}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}

    def sampling(self, temperature: float, rejected: int) -> dict[str, Any]:
        extra = {"frequency_penalty": 0.5, "seed": rejected} if rejected else {}
        return {"temperature": temperature, **extra}

    def served_models(self, url: str, timeout: float) -> list[str]:
        import openai

        client = openai.OpenAI(base_url=url, api_key=self.api_key, timeout=timeout, max_retries=0)
        with openai_errors("", url, timeout):
            return [str(model.id) for model in client.models.list()]


@contextlib.contextmanager
def openai_errors(model: str, url: str, timeout: float) -> Iterator[None]:
    """The OpenAI client's failures as ponder's errors, naming the server, not Ollama."""
    import openai

    try:
        yield
    except openai.NotFoundError:
        raise ModelNotFoundError(
            model, url, option="--model (the server's GET /v1/models lists its models)"
        ) from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise ModelServerRefusedError(url, exc.status_code) from None
    except openai.APITimeoutError:
        raise ModelCallError(f"no answer within {timeout:g}s") from None
    except openai.APIConnectionError as exc:
        if _never_connected(exc):
            raise ModelServerUnavailableError(url) from None
        raise ModelCallError(f"the connection to {url} broke ({exc})") from None
    except openai.APIStatusError as exc:
        raise ModelCallError(
            f"the model server answered HTTP {exc.status_code}: {exc.message}"
        ) from None
    except openai.APIError as exc:  # e.g. an error event in the middle of a stream
        raise ModelCallError(f"the model server failed: {exc.message}") from None


def _never_connected(exc: BaseException) -> bool:
    """Whether the cause was a refused or timed-out connect (the server is not there), as
    opposed to a connection that broke mid-answer (worth a retry). The HTTP library's
    error sits a few causes down, under the OpenAI client's and LangChain's wrappers."""
    cause: BaseException | None = exc
    while cause is not None:
        if type(cause).__name__ in ("ConnectError", "ConnectTimeout"):
            return True
        cause = cause.__cause__
    return False
