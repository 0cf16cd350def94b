"""The Ollama layer: the only code in ponder that talks to a model.

Small local models are the normal case, so every structured decision is sent with its JSON
schema in Ollama's ``format`` (constrained decoding), thinking is removed before parsing,
invalid output gets bounded retries and then a recorded fallback, and every prompt is fitted
to ``num_ctx`` before it is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, ValidationError

from ponder.config import Configuration
from ponder.errors import (
    ModelCallError,
    ModelNotFoundError,
    ModelServerRefusedError,
    ModelServerUnavailableError,
    OllamaUnavailableError,
    PonderError,
)
from ponder.ollama_host import one_host_for_the_ollama_client
from ponder.services.model import budget, guard
from ponder.services.model.hosts import REST_SECONDS, NoHostLeft, host_pool
from ponder.services.model.thinking import extract_json, strip_thinking

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
Started = Callable[[], bool] | None  # has a call begun to answer (so it cannot move)?
Warn = Callable[[str], None]
OnEvent = Callable[..., None]
Check = Callable[[str], str | None]  # a reason to reject a text, or None

# A rejected text (echo, loop, no citation) is tried once more with livelier sampling; a
# model that failed twice on the same prompt rarely does better a third time.
DEGENERATE_RETRIES = 1
# Tags on model calls: LangGraph leaves ``nostream`` calls (JSON decisions) out of its
# ``messages`` stream, so chat clients see only the prose ponder writes.
TEXT_TAG = "ponder:text"

# What langchain-ollama raises (as a ValueError) when a server answers with an empty stream.
_EMPTY_STREAM = "No data received from Ollama stream"

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

    stopped: int = 0  # generations stopped mid-stream because they degenerated
    discarded: int = 0  # live drafts withdrawn (rejected, broken off, or thinking)
    host_calls: dict[str, int] = field(default_factory=dict)  # calls answered, per host

    def count_host(self, url: str) -> None:
        self.host_calls[url] = self.host_calls.get(url, 0) + 1

    def record(self, prompt: int, completion: int, seconds: float) -> None:
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.model_seconds += seconds
        self.prompt_tokens_per_call.append(prompt)


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
        on_event: OnEvent | None = None,
    ) -> None:
        self.config = config
        self.model = (
            config.report_model if role == "report" and config.report_model else (config.model)
        )
        self.usage = usage or Usage()
        self._warn = warn or (lambda _message: None)
        self._on_event = on_event
        self._clients: dict[str, Any] = {}  # one ChatOllama per host

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
            where = "the model server" if self.config.provider == "openai" else "`ollama ps`"
            raise ModelCallError(
                f"The model '{self.model}' kept failing ({draft.problem}). Check {where} and "
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

    def _chat_model(self, url: str) -> Any:
        """One client per LLM (per node) and host: retries and later calls reuse its
        connections. Ollama's own API, or the OpenAI chat API (provider=openai)."""
        if url not in self._clients:
            from ponder.services.web.tls import shared_ssl_context

            timeout = httpx.Timeout(self.config.request_timeout, connect=10.0)
            verify = shared_ssl_context()
            if self.config.provider == "openai":
                from langchain_openai import ChatOpenAI  # heavy import, only when used

                self._clients[url] = ChatOpenAI(
                    model=self.model,
                    base_url=url,
                    api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",  # type: ignore[arg-type]
                    temperature=self.config.temperature,
                    max_completion_tokens=self.config.num_predict,
                    timeout=timeout,
                    max_retries=0,  # ponder's own retries and fallbacks apply
                    stream_usage=True,
                    http_async_client=httpx.AsyncClient(
                        timeout=timeout, verify=shared_ssl_context()
                    ),
                )
            else:
                one_host_for_the_ollama_client()
                from langchain_ollama import ChatOllama  # heavy import, off the start-up path

                self._clients[url] = ChatOllama(
                    model=self.model,
                    base_url=url,
                    num_ctx=self.config.num_ctx,
                    num_predict=self.config.num_predict,
                    temperature=self.config.temperature,
                    keep_alive=self.config.keep_alive,
                    client_kwargs={"timeout": timeout, "verify": verify},
                )
        return self._clients[url]

    def _hosts(self) -> list[str]:
        if self.config.provider == "openai":
            return [self.config.openai_base_url]
        return self.config.ollama_hosts

    def _schema_kwargs(self, format: dict | None) -> dict[str, Any]:
        """A structured call's schema: Ollama's ``format``, or OpenAI's ``response_format``."""
        if format is None:
            return {}
        if self.config.provider == "openai":
            name = re.sub(r"[^A-Za-z0-9_-]", "_", str(format.get("title") or "answer"))
            schema = {"name": name, "schema": format, "strict": False}
            return {"response_format": {"type": "json_schema", "json_schema": schema}}
        return {"format": format}

    async def _on_a_host(self, call: Callable[[Any], Awaitable[R]], started: Started = None) -> R:
        """``call(client)`` on one Ollama host; with several, on the least busy, and on
        another when that one fails before answering (it then rests a while).

        A stream that failed after its first piece is not moved: part of it may have been
        shown, so the caller's retry (which withdraws the draft) takes over.
        """
        hosts = self._hosts()
        if len(hosts) == 1:
            with self._errors(hosts[0]):
                result = await call(self._chat_model(hosts[0]))
            self.usage.count_host(hosts[0])
            return result
        pool = host_pool(hosts, self.config.ollama_parallel)
        tried: set[str] = set()
        failure: PonderError | None = None
        failures: list[PonderError] = []
        while True:
            try:
                async with pool.lease(tried) as host:
                    with self._errors(host.url):
                        result = await call(self._chat_model(host.url))
            except NoHostLeft:  # every host failed this call
                assert failure is not None
                if all(isinstance(f, OllamaUnavailableError) for f in failures):
                    raise OllamaUnavailableError(self.config.ollama_base_url) from None
                raise failure from None
            except (OllamaUnavailableError, ModelNotFoundError, ModelCallError) as exc:
                if pool.rest(host):
                    self._warn(
                        f"Ollama host {host.url} failed ({exc}); calls go to the other hosts "
                        f"for the next {REST_SECONDS:g} s."
                    )
                tried.add(host.url)
                failure = exc
                failures.append(exc)
                if started is not None and started():
                    raise
                continue
            pool.recovered(host)
            self.usage.count_host(host.url)
            return result

    async def _call(self, messages: list[BaseMessage], format: dict | None = None) -> str:
        """One structured call, kept off LangGraph's ``messages`` stream (it is JSON)."""
        started = time.perf_counter()
        schema = self._schema_kwargs(format)
        message = await self._on_a_host(
            lambda client: client.ainvoke(messages, config={"tags": [TAG_NOSTREAM]}, **schema)
        )
        assert isinstance(message, AIMessage)
        self._account(messages, message.usage_metadata, 0, time.perf_counter() - started)
        return str(message.text)

    async def _stream(
        self, messages: list[BaseMessage], rejected: int, live: bool, watch: Check | None
    ) -> tuple[str, guard.Problem | None]:
        """Stream one text answer; stop reading as soon as it degenerates.

        Returns the visible text (thinking removed) and the problem that stopped it, if any.
        Leaving the stream closes the HTTP response, which tells Ollama to stop generating.
        """
        started = time.perf_counter()
        check = guard.StreamCheck(watch)
        shown = ""
        pieces = 0
        usage: Any = None
        problem: guard.Problem | None = None

        async def read(client: Any) -> None:
            nonlocal shown, pieces, usage, problem
            stream = client.astream(
                messages, config={"tags": [TEXT_TAG]}, **self._sampling(rejected)
            )
            async with contextlib.aclosing(stream) as chunks:
                async for chunk in chunks:
                    pieces += 1
                    usage = chunk.usage_metadata or usage  # on the last chunk
                    problem = check.feed(str(chunk.text))
                    if live:
                        shown = self._show(strip_thinking(check.text), shown)
                    if problem:
                        break

        await self._on_a_host(read, started=lambda: pieces > 0)
        if problem:
            await _let_closed_streams_finish()
        self._account(messages, usage, pieces, time.perf_counter() - started)
        return strip_thinking(check.text), problem

    def _show(self, visible: str, shown: str) -> str:
        """Emit what became visible since ``shown``; returns what is shown now.

        Text turns out to have been thinking when a ``</think>`` arrives without its opening
        tag: what was shown is then withdrawn with a ``discarded`` event.
        """
        if not visible.startswith(shown):
            self._emit("discarded", reason="that was the model thinking")
            shown = ""
        if len(visible) > len(shown):
            self._emit("token", text=visible[len(shown) :])
        return visible

    def _sampling(self, rejected: int) -> dict[str, Any]:
        """Sampling for a text call; after a rejected attempt, livelier sampling to leave the
        rut (Ollama: a repeat penalty; the OpenAI API: a frequency penalty)."""
        temperature = self.config.temperature
        if rejected:
            temperature = min(temperature + 0.3 * rejected, 1.0)
        if self.config.provider == "openai":
            extra = {"frequency_penalty": 0.5, "seed": rejected} if rejected else {}
            return {"temperature": temperature, **extra}
        options: dict[str, Any] = {
            "num_ctx": self.config.num_ctx,
            "num_predict": self.config.num_predict,
            "temperature": temperature,
        }
        if rejected:
            options["repeat_penalty"] = 1.3
            options["seed"] = rejected
        return {"options": options}

    def _account(
        self, messages: list[BaseMessage], usage: Any, pieces: int, seconds: float
    ) -> None:
        """Record a call's usage; a stream stopped early has no counts, so they are estimated."""
        prompt_chars = sum(len(str(m.content)) for m in messages)
        reported = int((usage or {}).get("input_tokens") or 0)
        if reported:
            self.usage.record(reported, int((usage or {}).get("output_tokens") or 0), seconds)
            budget.calibrate(self.model, prompt_chars, reported)
        else:  # a stream stopped early: about one token per chunk
            estimate = sum(budget.estimate_tokens(str(m.content), self.model) for m in messages)
            self.usage.record(estimate, pieces, seconds)

    @contextlib.contextmanager
    def _errors(self, url: str) -> Iterator[None]:
        """Transient failures become ModelCallError; fatal ones raise their own error."""
        if self.config.provider == "openai":
            with openai_errors(self.model, url, self.config.request_timeout):
                yield
            return
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
            if _EMPTY_STREAM not in str(exc):
                raise  # ponder's own code failed inside the call: a bug, not the network
            raise ModelCallError(f"the server sent an empty answer ({exc})") from None

    def _emit(self, kind: str, **data: Any) -> None:
        if kind in ("discarded", "cut"):  # what was shown live is not (all) the report
            self.usage.discarded += 1
        if self._on_event is not None:
            self._on_event(kind, **data)


async def _let_closed_streams_finish() -> None:
    """Give the event loop a few turns after leaving a stream early.

    Closing LangChain's stream leaves the ollama client's inner generators to asyncio's
    finaliser, which closes the HTTP response — the signal for Ollama to stop generating —
    only once the loop runs again.
    """
    for _ in range(20):  # one turn per generator level and I/O step; 20 is ample
        await asyncio.sleep(0)


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


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "output"
    return f"{where}: {err['msg']}"
