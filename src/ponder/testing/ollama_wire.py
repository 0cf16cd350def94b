"""Ollama's chat wire format, as ``ollama`` 0.6 and ``langchain-ollama`` 1.x send and
expect it: streaming NDJSON where every chunk carries a ``message`` and the last has
``done: true`` with token counts and nanosecond durations, or one JSON (``stream: false``).
"""

from __future__ import annotations

import itertools
import json
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from ponder.testing.log import LogEntry
from ponder.testing.replies import ChatRequest, Reply
from ponder.testing.wire import (
    close,
    end_chunked,
    finish,
    limit,
    send_json,
    start_chunked,
    write_chunk,
)

NDJSON = "application/x-ndjson"


class OllamaWire:
    path: ClassVar[str] = "/api/chat"

    @staticmethod
    def parse(body: dict[str, Any]) -> ChatRequest:
        return ChatRequest(
            model=str(body.get("model", "")),
            messages=list(body.get("messages") or []),
            format=body.get("format") or None,
            options=dict(body.get("options") or {}),
            stream=bool(body.get("stream", True)),
            think=body.get("think"),
        )

    def __init__(self, http: BaseHTTPRequestHandler, request: ChatRequest, entry: LogEntry) -> None:
        self.http = http
        self.request = request
        self.entry = entry

    def model_not_found(self) -> None:
        model = self.request.model
        send_json(self.http, 404, {"error": f'model "{model}" not found, try pulling it first'})

    def error(self, status: int) -> None:
        self.entry.status = status
        if status == 404:
            self.model_not_found()
        else:
            send_json(self.http, status, {"error": "llama runner process has terminated"})

    def stream_error(self) -> None:
        first = self._stamp() | {"message": _text("partial"), "done": False}
        self._stream([first, {"error": "an error was encountered while running the model"}])

    def reply(self, reply: Reply) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        if reply.pieces is not None:
            self._reply_pieces(reply)
            return
        entry = self.entry
        entry.prompt_tokens = reply.prompt_tokens or max(entry.prompt_chars // 4, 1)
        entry.eval_tokens = reply.eval_tokens or max(len(reply.content) // 4, 1)
        entry.end = time.time()
        entry.reply = reply.content
        final = _final(entry)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.thinking is not None:
            message["thinking"] = reply.thinking
        if not self.request.stream:
            send_json(self.http, 200, {**self._stamp(), "message": message, **final})
            return
        chunks = [self._stamp() | {"message": m, "done": False} for m in _split(message)]
        chunks.append(self._stamp() | {"message": _text("")} | final)
        self._stream(chunks)

    def _reply_pieces(self, reply: Reply) -> None:
        """Stream a reply as it is produced, stopping when the client stops reading."""
        entry = self.entry
        pieces = iter(reply.pieces or ())
        if not self.request.stream:
            text = "".join(itertools.islice(pieces, limit(self.request)))
            finish(pieces)
            self.reply(
                Reply(text, prompt_tokens=reply.prompt_tokens, eval_tokens=reply.eval_tokens)
            )
            return
        start_chunked(self.http, NDJSON)
        try:
            for piece in itertools.islice(pieces, limit(self.request)):
                self._chunk(self._stamp() | {"message": _text(piece), "done": False})
                entry.pieces_sent += 1
                entry.reply += piece
                if reply.piece_delay:
                    time.sleep(reply.piece_delay)
            finish(pieces)
            entry.prompt_tokens = reply.prompt_tokens or max(entry.prompt_chars // 4, 1)
            entry.eval_tokens = reply.eval_tokens or entry.pieces_sent
            entry.end = time.time()
            self._chunk(self._stamp() | {"message": _text("")} | _final(entry))
            end_chunked(self.http)
        except (BrokenPipeError, ConnectionResetError):
            entry.client_stopped = True
            self.http.close_connection = True
        finally:
            close(pieces)

    def _stream(self, chunks: list[dict[str, Any]]) -> None:
        start_chunked(self.http, NDJSON)
        for chunk in chunks:
            self._chunk(chunk)
        end_chunked(self.http)

    def _chunk(self, payload: dict[str, Any]) -> None:
        write_chunk(self.http, (json.dumps(payload) + "\n").encode())

    def _stamp(self) -> dict[str, Any]:
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        return {"model": self.request.model, "created_at": now}


def _text(piece: str) -> dict[str, Any]:
    return {"role": "assistant", "content": piece}


def _final(entry: LogEntry) -> dict[str, Any]:
    """The closing fields of an Ollama reply: counts and nanosecond durations."""
    elapsed_ns = int((entry.end - entry.start) * 1e9)
    return {
        "done": True,
        "done_reason": "stop",
        "total_duration": elapsed_ns,
        "load_duration": 1_000_000,
        "prompt_eval_count": entry.prompt_tokens,
        "prompt_eval_duration": elapsed_ns // 3,
        "eval_count": entry.eval_tokens,
        "eval_duration": elapsed_ns // 2,
    }


def _split(message: dict[str, Any], size: int = 24) -> list[dict[str, Any]]:
    """Stream a message in pieces, thinking first, as Ollama does."""
    pieces: list[dict[str, Any]] = []
    thinking = message.get("thinking")
    if thinking:
        pieces.append({"role": "assistant", "content": "", "thinking": thinking})
    content = str(message.get("content") or "")
    for i in range(0, len(content), size):
        pieces.append({"role": "assistant", "content": content[i : i + size]})
    return pieces or [{"role": "assistant", "content": ""}]
