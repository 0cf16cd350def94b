"""What a wire format does for the rig, and the HTTP both formats are written with.

A wire format (:mod:`.ollama_wire`, :mod:`.openai_wire`) turns a chat request's body into a
:class:`~ponder.testing.replies.ChatRequest` and sends answers, errors and broken streams
the way its servers do; which fault is injected when is :mod:`.faults`' business alone.
"""

from __future__ import annotations

import json
import socket
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar, Protocol

from ponder.testing.log import LogEntry
from ponder.testing.replies import ChatRequest, Reply


class Wire(Protocol):
    """One chat request's answer, in one server's wire format."""

    path: ClassVar[str]  # where its chat requests arrive
    http: BaseHTTPRequestHandler

    @staticmethod
    def parse(body: dict[str, Any]) -> ChatRequest: ...

    def __init__(
        self, http: BaseHTTPRequestHandler, request: ChatRequest, entry: LogEntry
    ) -> None: ...

    def reply(self, reply: Reply) -> None:
        """Send ``reply``, streamed when the request asked for a stream."""

    def model_not_found(self) -> None:
        """The 404 for a model the server does not have."""

    def error(self, status: int) -> None:
        """An HTTP error (500, or 404) as the server reports a failed call."""

    def stream_error(self) -> None:
        """A stream that breaks after its first piece with an error in the stream."""


# -- HTTP ------------------------------------------------------------------------------


def send_json(http: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    http.send_response(status)
    http.send_header("Content-Type", "application/json; charset=utf-8")
    http.send_header("Content-Length", str(len(data)))
    http.end_headers()
    http.wfile.write(data)


def send_text(http: BaseHTTPRequestHandler, status: int, text: str) -> None:
    data = text.encode()
    http.send_response(status)
    http.send_header("Content-Type", "text/plain; charset=utf-8")
    http.send_header("Content-Length", str(len(data)))
    http.end_headers()
    http.wfile.write(data)


def start_chunked(http: BaseHTTPRequestHandler, content_type: str) -> None:
    """A 200 whose body follows in chunks (a stream)."""
    http.send_response(200)
    http.send_header("Content-Type", content_type)
    http.send_header("Transfer-Encoding", "chunked")
    http.end_headers()


def write_chunk(http: BaseHTTPRequestHandler, data: bytes) -> None:
    """One chunk, flushed at once: a client reads a stream as it is written."""
    http.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    http.wfile.flush()


def end_chunked(http: BaseHTTPRequestHandler) -> None:
    http.wfile.write(b"0\r\n\r\n")


def hang_up(http: BaseHTTPRequestHandler) -> None:
    """Close the connection without an answer."""
    http.close_connection = True
    http.connection.shutdown(socket.SHUT_RDWR)


# -- pieces ----------------------------------------------------------------------------


def finish(pieces: Any) -> None:
    """Read one piece past the limit, then stop: a real model's reply takes in its token
    counts after its last piece, which a reply cut at ``num_predict`` would miss (an endless
    scripted one only loses a piece nobody sees)."""
    next(pieces, None)
    close(pieces)


def close(pieces: Any) -> None:
    """Tell a generator-backed stream (the tiny model) to stop producing."""
    closing = getattr(pieces, "close", None)
    if callable(closing):
        closing()


def limit(request: ChatRequest) -> int:
    """The pieces a reply may have: the request's ``num_predict``."""
    return int(request.options.get("num_predict") or 1024)
