"""Ollama's own API through langchain-ollama (and the ``ollama`` SDK under it).

Every structured call sends its JSON schema as ``format`` (constrained decoding), and every
call carries ``num_ctx``: Ollama sizes the context window per request.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
from pydantic import ValidationError

from ponder.core.errors import ModelCallError, ModelNotFoundError, OllamaUnavailableError
from ponder.settings.configuration import Configuration
from ponder.settings.ollama_host import one_host_for_the_ollama_client

# What langchain-ollama raises (as a ValueError) when a server answers with an empty stream.
EMPTY_STREAM = "No data received from Ollama stream"


class OllamaProvider:
    server_kind = "Ollama"
    where_to_look = "`ollama ps`"

    def __init__(self, config: Configuration, model: str) -> None:
        self.config = config
        self.model = model
        self._clients: dict[str, Any] = {}  # one ChatOllama per host

    def hosts(self) -> list[str]:
        return self.config.ollama_hosts

    def client(self, url: str) -> Any:
        if url not in self._clients:
            from ponder.services.web.tls import shared_ssl_context

            one_host_for_the_ollama_client()
            from langchain_ollama import ChatOllama  # heavy import, off the start-up path

            timeout = httpx.Timeout(self.config.request_timeout, connect=10.0)
            self._clients[url] = ChatOllama(
                model=self.model,
                base_url=url,
                num_ctx=self.config.num_ctx,
                num_predict=self.config.num_predict,
                temperature=self.config.temperature,
                keep_alive=self.config.keep_alive,
                client_kwargs={"timeout": timeout, "verify": shared_ssl_context()},
            )
        return self._clients[url]

    @contextlib.contextmanager
    def errors(self, url: str) -> Iterator[None]:
        one_host_for_the_ollama_client()
        import ollama

        try:
            yield
        except ollama.ResponseError as exc:
            if exc.status_code == 404 and "not found" in str(exc.error).lower():
                raise ModelNotFoundError(self.model, url) from None
            raise ModelCallError(f"Ollama error: {exc.error} (HTTP {exc.status_code})") from None
        except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout):
            raise OllamaUnavailableError(url) from None
        except (TimeoutError, httpx.TimeoutException):
            raise ModelCallError(f"no answer within {self.config.request_timeout:g}s") from None
        except httpx.TransportError as exc:
            raise ModelCallError(f"connection problem: {type(exc).__name__}: {exc}") from None
        except (json.JSONDecodeError, ValidationError) as exc:  # not Ollama's wire format
            raise ModelCallError(f"the server's answer is not Ollama's: {exc}") from None
        except ValueError as exc:
            if EMPTY_STREAM not in str(exc):
                raise  # ponder's own code failed inside the call: a bug, not the network
            raise ModelCallError(f"the server sent an empty answer ({exc})") from None

    def schema_options(self, json_schema: dict[str, Any]) -> dict[str, Any]:
        return {"format": json_schema}

    def sampling(self, temperature: float, rejected: int) -> dict[str, Any]:
        """Options sent with the call (they override the client's); after a rejected
        attempt also a repeat penalty and another seed."""
        options: dict[str, Any] = {
            "num_ctx": self.config.num_ctx,
            "num_predict": self.config.num_predict,
            "temperature": temperature,
        }
        if rejected:
            options["repeat_penalty"] = 1.3
            options["seed"] = rejected
        return {"options": options}

    def served_models(self, url: str, timeout: float) -> list[str]:
        from ponder.services.web.tls import shared_ssl_context

        one_host_for_the_ollama_client()
        import ollama

        client = ollama.Client(host=url, timeout=timeout, verify=shared_ssl_context())
        try:
            listed = client.list()
        except (ConnectionError, httpx.HTTPError, ollama.ResponseError):
            raise OllamaUnavailableError(url) from None
        return sorted(str(m.model) for m in listed.models)
