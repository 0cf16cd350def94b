"""What the rig saw: one entry per request, which tests assert on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LogEntry:
    """One request as the rig saw it. Times are ``time.time()`` seconds."""

    path: str
    model: str = ""
    schema: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    prompt_chars: int = 0
    prompt_tokens: int = 0
    eval_tokens: int = 0
    start: float = 0.0
    end: float = 0.0
    status: int = 200
    fault: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)  # the texts of an /api/embed request
    pieces_sent: int = 0  # streamed chunks of a piece-by-piece reply
    reply: str = ""  # the text sent back, as far as the client read it
    client_stopped: bool = False  # the client hung up before the reply was complete
