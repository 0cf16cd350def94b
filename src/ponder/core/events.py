"""Typed progress events, streamed while a run works."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, Field

EventKind = Literal[
    "node_start",
    "node_end",
    "round_start",
    "queries",
    "aspects",  # the parts of a joined question, each searched beside the whole
    "uncovered",  # parts no finding is about yet (reflect keeps the loop going)
    "sources",
    "source",  # one source read (number, url, title, origin) or not (url, failed: reason)
    "summary",
    "reflection",
    "overruled",
    "warning",
    "handoff",
    "clarification",  # the run pauses on this question (emitted by the runner, once)
    "answered",  # the person's answer to it, as the run received it
    "supervisor",
    "researcher",
    "drafting",  # a streamed text begins: the report, or the next of its sections
    "token",
    "discarded",  # the text streamed since the last ``drafting`` is not kept
    "cut",  # of that text, the first ``keep`` characters are kept
    "report",
]


EVENT_KINDS: frozenset[str] = frozenset(get_args(EventKind))


class ProgressEvent(BaseModel):
    """One thing that happened. ``data`` carries the details (queries, counts, seconds…)."""

    kind: str
    node: str = ""
    path: list[str] = Field(default_factory=list, description="Subgraph nesting, outermost first.")
    data: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_custom(cls, namespace: tuple[str, ...], payload: dict[str, Any]) -> ProgressEvent:
        data = {k: v for k, v in payload.items() if k not in ("event", "node")}
        path = [part.split(":", 1)[0] for part in namespace]
        return cls(
            kind=str(payload.get("event", "")),
            node=str(payload.get("node", "")),
            path=path,
            data=data,
        )
