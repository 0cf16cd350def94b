"""The Ollama layer: the only code in ponder that talks to a model.

Small local models are the normal case, so every structured decision is sent with its JSON
schema in Ollama's ``format`` (constrained decoding), thinking is removed before parsing,
invalid output gets bounded retries and then a recorded fallback, and every prompt is fitted
to ``num_ctx`` before it is sent.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from ponder.config import Configuration
from ponder.errors import ModelCallError, ModelNotFoundError, OllamaUnavailableError
from ponder.services import budget
from ponder.services.thinking import extract_json, strip_thinking

T = TypeVar("T", bound=BaseModel)
Warn = Callable[[str], None]

# Room kept free in the context window for the chat template and the model's answer.
_TEMPLATE_OVERHEAD_TOKENS = 64


@dataclass
class Usage:
    """What model calls cost during one node (or one run, when added up)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    retries: int = 0
    fallbacks: int = 0
    prompt_tokens_per_call: list[int] = field(default_factory=list)

    def record(self, message: AIMessage, seconds: float) -> None:
        meta = message.response_metadata or {}
        prompt = int(meta.get("prompt_eval_count") or 0)
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += int(meta.get("eval_count") or 0)
        self.model_seconds += seconds
        self.prompt_tokens_per_call.append(prompt)


@dataclass
class Prompt:
    """A system instruction and user parts; parts with higher priority numbers drop first."""

    system: str
    parts: list[budget.Part]

    @classmethod
    def simple(cls, system: str, user: str) -> Prompt:
        return cls(system, [budget.Part(user, 0)])

    def user_text(self) -> str:
        return "\n\n".join(p.text for p in self.parts if p.text)


class LLM:
    """Model access for one node: structured output, plain text, usage and warnings."""

    def __init__(
        self,
        config: Configuration,
        *,
        role: str = "default",
        usage: Usage | None = None,
        warn: Warn | None = None,
    ) -> None:
        self.config = config
        self.model = (
            config.report_model if role == "report" and config.report_model else (config.model)
        )
        self.usage = usage or Usage()
        self._warn = warn or (lambda _message: None)

    # -- public API -----------------------------------------------------------------

    async def structured(self, schema: type[T], prompt: Prompt, fallback: T | Callable[[], T]) -> T:
        """A validated ``schema`` instance, or ``fallback`` after bounded retries (recorded).

        Connection refused and model-not-found raise at once: no retry can fix them.
        """
        json_schema = schema.model_json_schema()
        messages = self._messages(prompt)
        problem = ""
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                self.usage.retries += 1
            try:
                reply = await self._call(messages, format=json_schema)
            except ModelCallError as exc:
                problem = str(exc)
                continue
            try:
                return schema.model_validate_json(extract_json(strip_thinking(reply)))
            except ValidationError as exc:
                problem = f"invalid {schema.__name__}: {_first_error(exc)}"
        self.usage.fallbacks += 1
        self._warn(f"{schema.__name__}: model output unusable ({problem}); used a fallback.")
        return fallback() if callable(fallback) else fallback

    async def text(self, prompt: Prompt, fallback: str | Callable[[], str] | None = None) -> str:
        """Plain text with thinking removed. Without a fallback, failure raises ModelCallError."""
        messages = self._messages(prompt)
        problem = ""
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                self.usage.retries += 1
            try:
                reply = strip_thinking(await self._call(messages))
            except ModelCallError as exc:
                problem = str(exc)
                continue
            if reply:
                return reply
            problem = "empty reply"
        if fallback is None:
            raise ModelCallError(
                f"The model '{self.model}' kept failing ({problem}). Check `ollama ps` and the "
                "server log, or try again; the run's checkpoint is kept."
            )
        self.usage.fallbacks += 1
        self._warn(f"Model text unusable ({problem}); used a fallback.")
        return fallback() if callable(fallback) else fallback

    def prompt_budget(self) -> int:
        """Tokens a prompt may use: the window minus the answer and template overhead."""
        return max(self.config.num_ctx - self.config.num_predict - _TEMPLATE_OVERHEAD_TOKENS, 256)

    # -- internals ------------------------------------------------------------------

    def _messages(self, prompt: Prompt) -> list[BaseMessage]:
        system = budget.Part(prompt.system, 0)
        kept, dropped = budget.fit([system, *prompt.parts], self.prompt_budget(), self.model)
        if dropped:
            self._warn(
                "Prompt trimmed to fit num_ctx="
                f"{self.config.num_ctx}: "
                + (
                    "a required part was shortened."
                    if dropped < 0
                    else f"{dropped} part(s) left out."
                )
            )
        user = "\n\n".join(p.text for p in kept[1:] if p.text)
        return [SystemMessage(kept[0].text), HumanMessage(user)]

    @functools.cached_property
    def _chat_model(self) -> Any:
        """One client per LLM (per node): retries and later calls reuse its connections."""
        from langchain_ollama import ChatOllama  # heavy import, kept off the CLI's start-up path

        from ponder.services.tls import shared_ssl_context

        return ChatOllama(
            model=self.model,
            base_url=self.config.ollama_base_url,
            num_ctx=self.config.num_ctx,
            num_predict=self.config.num_predict,
            temperature=self.config.temperature,
            keep_alive=self.config.keep_alive,
            client_kwargs={
                "timeout": httpx.Timeout(self.config.request_timeout, connect=10.0),
                "verify": shared_ssl_context(),
            },
        )

    async def _call(self, messages: list[BaseMessage], format: dict | None = None) -> str:
        """One model call; transient failures become ModelCallError, fatal ones raise."""
        import ollama

        started = time.perf_counter()
        try:
            kwargs: dict[str, Any] = {"format": format} if format else {}
            message = await self._chat_model.ainvoke(messages, **kwargs)
        except ollama.ResponseError as exc:
            if exc.status_code == 404 and "not found" in str(exc.error).lower():
                raise ModelNotFoundError(self.model, self.config.ollama_base_url) from None
            raise ModelCallError(f"Ollama error: {exc.error} (HTTP {exc.status_code})") from None
        except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout):
            raise OllamaUnavailableError(self.config.ollama_base_url) from None
        except (TimeoutError, httpx.TimeoutException):
            raise ModelCallError(f"no answer within {self.config.request_timeout:g}s") from None
        except (httpx.TransportError, ValueError) as exc:
            raise ModelCallError(f"connection problem: {type(exc).__name__}: {exc}") from None
        seconds = time.perf_counter() - started
        assert isinstance(message, AIMessage)
        self.usage.record(message, seconds)
        prompt_chars = sum(len(str(m.content)) for m in messages)
        reported = int(message.response_metadata.get("prompt_eval_count") or 0)
        budget.calibrate(self.model, prompt_chars, reported)
        return str(message.text)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "output"
    return f"{where}: {err['msg']}"
