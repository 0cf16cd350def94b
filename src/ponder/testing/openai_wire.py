"""The OpenAI chat API's wire format (what LM Studio, llama-server and vLLM speak): one
``chat.completion``, or server-sent ``chat.completion.chunk`` events ending with a usage
event and ``[DONE]``. A JSON schema in ``response_format`` becomes the request's format,
so the same backend answers both APIs."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
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

EVENT_STREAM = "text/event-stream"


class OpenAIWire:
    path: ClassVar[str] = "/v1/chat/completions"

    @staticmethod
    def parse(body: dict[str, Any]) -> ChatRequest:
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        options = {"num_predict": body.get("max_completion_tokens") or body.get("max_tokens")}
        options |= {k: body[k] for k in ("temperature", "seed") if k in body}
        return ChatRequest(
            model=str(body.get("model", "")),
            messages=list(body.get("messages") or []),
            format=schema,
            options={k: v for k, v in options.items() if v is not None},
            stream=bool(body.get("stream", False)),
        )

    def __init__(self, http: BaseHTTPRequestHandler, request: ChatRequest, entry: LogEntry) -> None:
        self.http = http
        self.request = request
        self.entry = entry

    def model_not_found(self) -> None:
        error = {"message": f"model '{self.request.model}' not found", "type": "not_found"}
        send_json(self.http, 404, {"error": error})

    def error(self, status: int) -> None:
        self.entry.status = status
        kind = self.entry.fault
        send_json(self.http, status, {"error": {"message": f"injected {kind}"}})

    def stream_error(self) -> None:
        """A piece, then an error event, as vLLM sends."""
        start_chunked(self.http, EVENT_STREAM)
        piece = {"choices": [{"index": 0, "delta": {"content": "partial"}}]}
        self._event(json.dumps(piece))
        self._event(json.dumps({"error": {"message": "the model crashed", "type": "server"}}))
        end_chunked(self.http)

    def reply(self, reply: Reply) -> None:
        """A completion, or server-sent events read piece by piece (a client that stops
        reading stops the model, as with Ollama's stream)."""
        if reply.delay:
            time.sleep(reply.delay)
        request, entry = self.request, self.entry
        if reply.pieces is not None:
            produced: Iterator[str] = iter(reply.pieces)
            source: Iterator[str] = itertools.islice(produced, limit(request))
        else:
            produced = iter(())
            source = iter([reply.content[i : i + 24] for i in range(0, len(reply.content), 24)])
        stamp = {"id": "chatcmpl-rig", "created": int(entry.start), "model": request.model}
        if not request.stream:
            text = entry.reply = "".join(source)
            finish(produced)
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            usage = self._usage(reply, len(text) // 4)
            send_json(self.http, 200, {**stamp, "object": "chat.completion", "choices": [choice],
                                       "usage": usage})  # fmt: skip
            return
        start_chunked(self.http, EVENT_STREAM)
        chunk = {**stamp, "object": "chat.completion.chunk"}
        try:
            for piece in source:
                delta = {"index": 0, "delta": {"content": piece}}
                self._event(json.dumps({**chunk, "choices": [delta]}))
                entry.pieces_sent += 1
                entry.reply += piece
            finish(produced)
            done = {"index": 0, "delta": {}, "finish_reason": "stop"}
            self._event(json.dumps({**chunk, "choices": [done]}))
            usage = self._usage(reply, entry.pieces_sent)
            self._event(json.dumps({**chunk, "choices": [], "usage": usage}))
            self._event("[DONE]")
            end_chunked(self.http)
        except (BrokenPipeError, ConnectionResetError):
            entry.client_stopped = True
            self.http.close_connection = True
        finally:
            close(reply.pieces)

    def _usage(self, reply: Reply, written: int) -> dict[str, int]:
        entry = self.entry
        entry.prompt_tokens = reply.prompt_tokens or max(entry.prompt_chars // 4, 1)
        entry.eval_tokens = reply.eval_tokens or max(written, 1)
        entry.end = time.time()
        return {
            "prompt_tokens": entry.prompt_tokens,
            "completion_tokens": entry.eval_tokens,
            "total_tokens": entry.prompt_tokens + entry.eval_tokens,
        }

    def _event(self, data: str) -> None:
        write_chunk(self.http, f"data: {data}\n\n".encode())


def model_listing(name: str) -> dict[str, Any]:
    """A model as ``GET /v1/models`` lists it."""
    return {"id": name, "object": "model", "created": 1767225600, "owned_by": "rig"}
