"""What every node gets: its configuration, model access, warnings, progress and timing."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig

from ponder.core.errors import PonderError
from ponder.core.events import EVENT_KINDS
from ponder.core.redact import redact
from ponder.core.result import RunStats
from ponder.core.stats import merge_stats
from ponder.core.warnings import shape
from ponder.services.model.llm import LLM
from ponder.services.model.usage import Usage
from ponder.services.search.backends.local.embeddings import Embedder, configured_embedder
from ponder.settings.caller_view import CallerView
from ponder.settings.configuration import Configuration
from ponder.settings.environment import Environment
from ponder.settings.run_settings import SERVED_KEY, run_configuration, run_environment

S = TypeVar("S")
# The metadata key naming the deep pipeline's researcher (its sub-topic) a node works for.
RESEARCHER_KEY = "ponder_researcher"


@dataclass
class NodeContext:
    name: str
    config: Configuration
    # The machine's settings and the keys, as the run's edge read them (never state).
    environment: Environment
    # On a served graph: what its caller may see (state is the caller's to read, so the
    # operator's hosts and files are named, not given, before they are written there).
    view: CallerView | None = None
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)
    counters: dict[str, float] = field(default_factory=dict)
    researcher: str = ""  # the sub-topic, inside a deep pipeline's researcher; its events say

    def llm(self, role: str = "default") -> LLM:
        return LLM(
            self.config,
            role=role,
            usage=self.usage,
            warn=self.warn,
            on_event=self.emit,
            api_key=self.environment.secret("OPENAI_API_KEY"),
        )

    def embedder(self) -> Embedder | None:
        """Semantic search's model (``embed_model``); None when it is off."""
        return configured_embedder(self.config, self.warn)

    def warn(self, message: str) -> None:
        message = redact(message)  # warnings are kept in the run's state and shown
        if self.view is not None:
            message = self.view.text(message)
        self.warnings.append(message)
        # Its shape lets a live view show a warning repeated for other queries once.
        self.emit("warning", message=message, shape=shape(message))

    def count(self, key: str, amount: float = 1) -> None:
        """Add to one of the run's statistics, a field of :class:`RunStats` (which the
        caller gets); a name that is none is a bug, not a figure to drop on the way."""
        if key not in RunStats.model_fields:
            raise KeyError(f"{key!r} is not a RunStats field: add it there to count it")
        self.counters[key] = self.counters.get(key, 0) + amount

    def emit(self, kind: str, **data: Any) -> None:
        """A progress event on LangGraph's custom stream (a no-op outside a run); a kind that
        is no EventKind is a bug, not an event to send unknown to every reader."""
        if kind not in EVENT_KINDS:
            raise KeyError(f"{kind!r} is not an EventKind: add it in core/events.py to emit it")
        try:
            from langgraph.config import get_stream_writer

            who = {"researcher": self.researcher} if self.researcher else {}
            get_stream_writer()({"event": kind, "node": self.name, **who, **data})
        except (RuntimeError, KeyError):
            pass

    def stats(self, seconds: float) -> dict[str, Any]:
        host_calls = {redact(host): n for host, n in self.usage.host_calls.items()}
        if self.view is not None:
            host_calls = self.view.stats({"host_calls": host_calls})["host_calls"]
        return {
            "llm_calls": self.usage.calls,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "model_seconds": round(self.usage.model_seconds, 6),
            "call_timings": list(self.usage.call_timings),
            "retries": self.usage.retries,
            "fallbacks": self.usage.fallbacks,
            "generations_stopped": self.usage.stopped,
            **self.counters,
            "node_seconds": {self.name: round(seconds, 6)},
            "host_calls": host_calls,
            "warnings": list(self.warnings),
        }


NodeFn = Callable[[S, NodeContext], Awaitable[dict[str, Any]]]


async def run_node(name: str, body: NodeFn[S], state: S, config: RunnableConfig) -> dict[str, Any]:
    """Run a node body: resolve configuration, time it, and add its cost to ``stats``."""
    settings = run_configuration(config)
    served = SERVED_KEY in ((config or {}).get("configurable") or {})
    view = CallerView(settings) if served else None
    ctx = NodeContext(name, settings, run_environment(config), view)
    ctx.researcher = str(((config or {}).get("metadata") or {}).get(RESEARCHER_KEY) or "")
    ctx.emit("node_start")
    started = time.perf_counter()
    try:
        update = await body(state, ctx)
    except PonderError as exc:  # a served run's error is its caller's to read too
        if ctx.view is not None:
            exc.args = tuple(ctx.view.text(a) if isinstance(a, str) else a for a in exc.args)
        raise
    seconds = time.perf_counter() - started
    update["stats"] = merge_stats(update.get("stats"), ctx.stats(seconds))
    tokens = ctx.usage.prompt_tokens + ctx.usage.completion_tokens
    ctx.emit("node_end", seconds=round(seconds, 3), tokens=tokens)
    return update


def node(name: str) -> Callable[[NodeFn[S]], Any]:
    """Wrap a node body: resolve configuration, time it, and add its cost to ``stats``.

    The result is typed ``Any``: LangGraph's ``add_node`` overloads do not match a generic
    async callable of (state, config), although LangGraph runs one correctly.
    """

    def decorate(body: NodeFn[S]) -> Any:
        async def run(state: S, config: RunnableConfig) -> dict[str, Any]:
            return await run_node(name, body, state, config)

        # Not functools.wraps: LangGraph reads the signature to decide to pass ``config``.
        run.__name__ = run.__qualname__ = body.__name__
        run.__doc__ = body.__doc__
        return run

    return decorate
