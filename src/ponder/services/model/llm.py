"""The LLM layer: the only code in ponder that talks to a model.

Small local models are the normal case, so every structured decision is sent with its JSON
schema (constrained decoding), thinking is removed before parsing, invalid output gets
bounded retries and then a recorded fallback, and every prompt is fitted to ``num_ctx``
before it is sent. What differs between SDKs is the provider's (``providers``); which host
answers, ``hosts``; how a streamed text is read, ``streaming``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, ValidationError

from ponder.core.errors import ModelCallError
from ponder.services.model import guard
from ponder.services.model.hosts import on_a_host
from ponder.services.model.prompt import Prompt, fitted_messages, prompt_budget
from ponder.services.model.providers import provider_for
from ponder.services.model.streaming import Check, TextStream
from ponder.services.model.thinking import extract_json, strip_thinking
from ponder.services.model.usage import Usage
from ponder.settings.configuration import Configuration

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
Warn = Callable[[str], None]
OnEvent = Callable[..., None]

# A rejected text (echo, loop, no citation) is tried once more with livelier sampling; a
# model that failed twice on the same prompt rarely does better a third time.
DEGENERATE_RETRIES = 1


@dataclass
class Draft:
    """A text as the model wrote it: whole, or cut where it degenerated (``problem`` says
    why, ``cut_chars`` how much was cut), or none at all (``text`` empty)."""

    text: str
    problem: str | None = None
    cut_chars: int = 0

    @property
    def cut(self) -> bool:
        return bool(self.text) and self.problem is not None


class LLM:
    """Model access for one node: structured output, plain text, usage and warnings."""

    def __init__(
        self,
        config: Configuration,
        *,
        role: str = "default",
        usage: Usage | None = None,
        warn: Warn | None = None,
        on_event: OnEvent | None = None,
        api_key: str | None = None,
    ) -> None:
        """``api_key``: the OpenAI API server's key, with provider=openai (read at an edge)."""
        self.config = config
        self.model = (
            config.report_model if role == "report" and config.report_model else (config.model)
        )
        self.usage = usage or Usage()
        self._warn = warn or (lambda _message: None)
        self._on_event = on_event
        # One client per LLM (per node) and host: retries and later calls reuse its connections.
        self.provider = provider_for(config, self.model, api_key)

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
                reply = await self._call(messages, json_schema)
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

    async def text(
        self,
        prompt: Prompt,
        fallback: str | Callable[[], str] | None = None,
        *,
        accept: Check | None = None,
        watch: Check | None = None,
        live: bool = False,
    ) -> str:
        """Plain text with thinking removed, checked while it streams.

        A generation that echoes the prompt or loops is stopped at once (see ``guard``) and
        tried again with livelier sampling, at most ``DEGENERATE_RETRIES`` times. ``watch``
        may stop a streaming text too, and ``accept`` reject a finished one, each with a
        reason (e.g. "cites no retrieved source"). Without a fallback, failure raises
        ModelCallError. ``live`` streams the text as ``token`` events, and a rejected attempt
        as a ``discarded`` event.
        """
        draft = await self.draft(prompt, accept=accept, watch=watch, live=live)
        if draft.text:
            return draft.text
        if fallback is None:
            raise ModelCallError(
                f"The model '{self.model}' kept failing ({draft.problem}). "
                f"Check {self.provider.where_to_look} and "
                "the server log, or try again; the run's checkpoint is kept."
            )
        self.usage.fallbacks += 1
        self._warn(f"Model text unusable ({draft.problem}); used a fallback.")
        return fallback() if callable(fallback) else fallback

    async def draft(
        self,
        prompt: Prompt,
        *,
        accept: Check | None = None,
        watch: Check | None = None,
        salvage: Callable[[str], str | None] | None = None,
        live: bool = False,
    ) -> Draft:
        """Like ``text``, but a generation that degenerates after a usable beginning is not
        thrown away: ``salvage`` is given the text before the problem and returns the part
        worth keeping (or None); that part is kept (no retry) and the draft says what was
        cut. An unusable draft has no text."""
        messages = self._messages(prompt)
        problem = ""
        rejected = 0
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                self.usage.retries += 1
            if live:  # a live view starts a part (the report, or its next section) here
                self._emit("drafting")
            try:
                reply, stopped = await self._stream(messages, rejected, live, watch)
            except ModelCallError as exc:
                problem = str(exc)
                if live:  # part of a draft may have been shown before the call broke
                    self._emit("discarded", reason=problem)
                continue
            issue = stopped or self._review(reply, accept)
            if issue is None:
                return Draft(reply)
            problem = issue.reason
            rejected += 1
            if stopped:
                self.usage.stopped += 1
            before = reply[: issue.start].rstrip()
            kept = salvage(before) if before and salvage is not None else None
            if kept:
                if live:
                    self._emit("cut", keep=len(kept), reason=issue.reason)
                return Draft(kept, issue.reason, len(reply) - len(kept))
            if live:
                self._emit("discarded", reason=issue.reason)
            if rejected > DEGENERATE_RETRIES:
                break
        return Draft("", problem)

    @staticmethod
    def _review(reply: str, accept: Check | None) -> guard.Problem | None:
        if not reply:
            return guard.Problem("empty reply")
        found = guard.problem(reply)
        if found:
            return found
        reason = accept(reply) if accept else None
        return guard.Problem(reason) if reason else None

    def prompt_budget(self) -> int:
        """Tokens a prompt may use: the window minus the answer and template overhead."""
        return prompt_budget(self.config)

    # -- internals ------------------------------------------------------------------

    def _messages(self, prompt: Prompt) -> list[BaseMessage]:
        return fitted_messages(prompt, self.config, self.model, self._warn)

    async def _on_a_host(
        self, call: Callable[[Any], Awaitable[R]], started: Callable[[], bool] | None = None
    ) -> R:
        """``call(client)`` on a host that answers (see ``hosts.on_a_host``), its SDK's
        failures turned into ponder's errors."""

        deadline = self.config.request_timeout

        async def attempt(url: str) -> R:
            with self.provider.errors(url):
                # The whole call, streamed or not: a server that sends a piece every few
                # seconds and never finishes passes every read's own time limit.
                try:
                    return await asyncio.wait_for(call(self.provider.client(url)), deadline)
                except TimeoutError:
                    raise ModelCallError(
                        f"the answer did not finish within {deadline:g}s (request_timeout)"
                    ) from None

        result, url = await on_a_host(
            self.provider.hosts(),
            self.config.ollama_parallel,
            attempt,
            warn=self._warn,
            started=started,
        )
        self.usage.count_host(url)
        return result

    async def _call(self, messages: list[BaseMessage], json_schema: dict[str, Any]) -> str:
        """One structured call, kept off LangGraph's ``messages`` stream (it is JSON)."""
        started = time.perf_counter()
        schema = self.provider.schema_options(json_schema)
        message = await self._on_a_host(
            lambda client: client.ainvoke(messages, config={"tags": [TAG_NOSTREAM]}, **schema)
        )
        assert isinstance(message, AIMessage)
        seconds = time.perf_counter() - started
        self.usage.account(self.model, messages, message.usage_metadata, 0, seconds)
        return str(message.text)

    async def _stream(
        self, messages: list[BaseMessage], rejected: int, live: bool, watch: Check | None
    ) -> tuple[str, guard.Problem | None]:
        """Stream one text answer; stop reading as soon as it degenerates.

        Returns the visible text (thinking removed) and the problem that stopped it, if any.
        After a rejected attempt the sampling is livelier (a higher temperature, and the
        SDK's penalty against repetition), to leave the rut.
        """
        started = time.perf_counter()
        temperature = self.config.temperature
        if rejected:
            temperature = min(temperature + 0.3 * rejected, 1.0)
        sampling = self.provider.sampling(temperature, rejected)
        stream = TextStream(messages, sampling, watch, self._emit if live else None)
        await self._on_a_host(stream.read, started=stream.started)
        await stream.settle()
        seconds = time.perf_counter() - started
        self.usage.account(self.model, messages, stream.usage, stream.pieces, seconds)
        return stream.text, stream.problem

    def _emit(self, kind: str, **data: Any) -> None:
        if kind in ("discarded", "cut"):  # what was shown live is not (all) the report
            self.usage.discarded += 1
        if self._on_event is not None:
            self._on_event(kind, **data)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "output"
    return f"{where}: {err['msg']}"
