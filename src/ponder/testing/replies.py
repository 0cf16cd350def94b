"""What the rig answers: scripted replies, schema-valid automatic replies, and faults."""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

FaultKind = Literal[
    "http500", "not_found", "invalid_json", "garbage", "stream_error", "slow", "drop"
]
FAULT_KINDS: tuple[FaultKind, ...] = (
    "http500",
    "not_found",
    "invalid_json",
    "garbage",
    "stream_error",
    "slow",
    "drop",
)


@dataclass
class ChatRequest:
    """A parsed ``POST /api/chat`` body."""

    model: str
    messages: list[dict[str, Any]]
    format: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    stream: bool = True
    think: Any = None

    @property
    def schema_title(self) -> str | None:
        if isinstance(self.format, dict):
            return str(self.format.get("title") or "object")
        return "json" if self.format == "json" else None

    @property
    def prompt_text(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.messages)


@dataclass
class Reply:
    """A successful answer. ``thinking`` goes to Ollama's separate ``thinking`` field.

    ``pieces``, when given, are streamed one chunk each (about one token, as Ollama does),
    ``piece_delay`` apart, up to the request's ``num_predict``; ``content`` is then unused.
    An endless iterator plays a model stuck in a loop: the rig stops when the client stops
    reading, and logs that it did.
    """

    content: str = ""
    thinking: str | None = None
    delay: float = 0.0
    prompt_tokens: int | None = None
    eval_tokens: int | None = None
    pieces: Iterable[str] | None = None
    piece_delay: float = 0.0


@dataclass
class Fault:
    """A failure to inject. ``delay`` is how long a ``slow`` reply sleeps first."""

    kind: FaultKind
    delay: float = 0.0


Answer = Reply | Fault
ScriptItem = str | dict[str, Any] | Reply | Fault | Callable[[ChatRequest], Any]


class Backend(Protocol):
    def answer(self, request: ChatRequest) -> Answer: ...


class ScriptedBackend:
    """Replies from a queue, then per-schema overrides, then schema-valid automatic replies.

    ``overrides`` maps a schema title (the pydantic class name, or ``"text"`` for plain text
    requests) to a reply item — a dict, string, Reply, Fault or a function of the request.
    ``delay`` adds a fixed wait to every answer (for concurrency measurements), and
    ``token_delay`` a wait per token it writes (about four characters each), so the rig
    paces its answers as a slow model does: a longer answer takes longer.
    """

    def __init__(
        self,
        replies: Iterable[ScriptItem] = (),
        *,
        overrides: Mapping[str, ScriptItem] | None = None,
        delay: float = 0.0,
        token_delay: float = 0.0,
    ) -> None:
        self._queue: deque[ScriptItem] = deque(replies)
        self.overrides: dict[str, ScriptItem] = dict(overrides or {})
        self.delay = delay
        self.token_delay = token_delay
        self._lock = threading.Lock()

    def push(self, *items: ScriptItem) -> None:
        with self._lock:
            self._queue.extend(items)

    def answer(self, request: ChatRequest) -> Answer:
        with self._lock:
            item: ScriptItem | None = self._queue.popleft() if self._queue else None
        if item is None:
            item = self.overrides.get(request.schema_title or "text")
        answer = _to_answer(item, request) if item is not None else auto_reply(request)
        if isinstance(answer, Reply) and (self.delay or self.token_delay) and not answer.delay:
            written = answer.eval_tokens or max(len(answer.content) // 4, 1)
            answer.delay = self.delay + self.token_delay * written
        return answer


def _to_answer(item: ScriptItem, request: ChatRequest) -> Answer:
    if callable(item) and not isinstance(item, Reply | Fault):
        return _to_answer(item(request), request)
    if isinstance(item, Reply | Fault):
        return Reply(**vars(item)) if isinstance(item, Reply) else item
    if isinstance(item, dict):
        if set(item) == {"fault"} or ("fault" in item and "delay" in item and len(item) == 2):
            return Fault(item["fault"], float(item.get("delay", 0)))
        return Reply(json.dumps(item))
    return Reply(str(item))


# -- automatic replies -------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,}")


def auto_reply(request: ChatRequest) -> Reply:
    """A deterministic reply that satisfies the request's schema.

    A sensible one where ponder's prompts make that easy: a summary restates the first
    sentence of each source block it is shown, citing it; a report restates the findings
    of its notes with their citations. Otherwise the schema is filled with the topic's
    words, and a text cites [1].
    """
    words = _topic_words(request)
    if request.schema_title == "SummaryUpdate" and source_blocks(request):
        return Reply(json.dumps(restated_sources(request)))
    if isinstance(request.format, dict):
        value = _instance(request.format, request.format, words, "root")
        return Reply(json.dumps(value))
    if request.format == "json":
        return Reply("{}")
    subject = " ".join(words[:4]) or "the topic"
    findings = noted_findings(request)
    if findings:
        body = "\n\n".join(f"{text} [{number}]" for number, text in findings.items())
        return Reply(f"# Notes on {subject}\n\n{body}\n")
    return Reply(
        f"# Notes on {subject}\n\n{subject.capitalize()} is described in the sources [1]. "
        "Further detail appears in the material that was read [2].\n"
    )


_SOURCE_BLOCK = re.compile(r'<source n="(\d+)"[^>]*>\n(.*?)\n</source>', re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def source_blocks(request: ChatRequest) -> list[tuple[int, str]]:
    """The numbered source blocks of a prompt, as (number, text with spaces evened), without
    the pages' heading and rule lines."""
    found = _SOURCE_BLOCK.findall(str(request.messages[-1].get("content") or ""))
    return [(int(number), " ".join(_PAGE_MARKUP.sub(" ", text).split())) for number, text in found]


_PAGE_MARKUP = re.compile(r"(?m)^[ \t]*(?:#{1,6}[ \t].*|[=\-~]{3,}[ \t]*)$")


def restated_sources(request: ChatRequest, limit: int = 3) -> dict[str, Any]:
    """A SummaryUpdate as a capable model writes it: each source's first sentence of
    substance, restated as a finding that cites that source."""
    findings = []
    for number, text in source_blocks(request):
        statement = next((s for s in _SENTENCE_END.split(text) if len(s.split()) >= 5), "")
        if statement:
            findings.append({"statement": statement[:240], "sources": [number]})
    return {"findings": findings[:limit]}


def noted_findings(request: ChatRequest) -> dict[int, str]:
    """The findings of a report prompt's notes, by the source number each cites first,
    without the heading marks and rules they may carry from the page."""
    prompt = str(request.messages[-1].get("content") or "")
    found: dict[int, str] = {}
    for line in prompt.splitlines():
        numbers = re.findall(r"\[(\d+)\]", line)
        if line.startswith("- ") and numbers and not line.startswith("- Read for "):
            statement = re.sub(r"\s*\[\d+\]|^#+\s*|={3,}\s*", "", line[2:]).strip()
            found.setdefault(int(numbers[0]), statement)
    return found


def _topic_words(request: ChatRequest) -> list[str]:
    user = next(
        (m for m in reversed(request.messages) if m.get("role") == "user"),
        {"content": ""},
    )
    text = str(user.get("content") or "")
    match = re.search(r"(?im)^(?:topic|question|sub-topic)\s*:\s*(.+)$", text)
    return _WORD.findall(match.group(1) if match else text)[:8]


def _instance(schema: dict[str, Any], root: dict[str, Any], words: list[str], name: str) -> Any:
    if "$ref" in schema:
        ref = schema["$ref"].split("/")[-1]
        return _instance(root.get("$defs", {})[ref], root, words, name)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"] or schema["anyOf"]
        return _instance(options[0], root, words, name)
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {key: _instance(sub, root, words, key) for key, sub in props.items()}
    if kind == "array":
        count = max(int(schema.get("minItems", 1)), 1)
        count = min(count, int(schema.get("maxItems", count)))
        items = schema.get("items", {"type": "string"})
        return [_instance(items, root, words, f"{name}{i + 1}") for i in range(count)]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    subject = " ".join(words[:5]) or "the topic"
    text = f"{subject} {name}".strip()
    return text[: int(schema.get("maxLength", 10_000))]
