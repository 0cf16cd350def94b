"""An Ollama-compatible HTTP server for tests: the rig.

It speaks what ``ollama`` 0.6 and ``langchain-ollama`` 1.x send and expect — streaming NDJSON
chat where every chunk carries a ``message`` and the last has ``done: true`` with token
counts and nanosecond durations, ``stream: false``, tags, show, version, ps — and keeps a
request log that tests assert on.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ponder.testing.embedding import TextEmbedder
from ponder.testing.replies import Backend, ChatRequest, Fault, Reply

OLLAMA_VERSION = "0.12.6"
CHAT_PATHS = ("/api/chat", "/v1/chat/completions")


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


class Rig:
    """Serve ``backend`` on 127.0.0.1 under the given model names. Use as a context manager.

    With an ``embedder``, ``/api/embed`` answers for the ``embed_models`` names; without one,
    it answers as an Ollama that has not pulled the model. ``one_at_a_time`` answers one
    chat at a time, the others waiting their turn.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        models: tuple[str, ...] = ("scripted",),
        port: int = 0,
        log_file: Path | None = None,
        embedder: TextEmbedder | None = None,
        embed_models: tuple[str, ...] = (),
        one_at_a_time: bool = False,
    ) -> None:
        self.backend = backend
        # Like one GPU running Ollama with default parallelism: chats queue, one answers.
        self.serial: AbstractContextManager[Any] = (
            threading.Lock() if one_at_a_time else contextlib.nullcontext()
        )
        self.models = models
        self.embedder = embedder
        self.embed_models = embed_models if embedder is not None else ()
        self.log: list[LogEntry] = []
        self.log_file = log_file
        self._lock = threading.Lock()
        self._idle = threading.Condition()
        self._in_flight = 0
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.rig = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> Rig:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, let the backend stop generating, and wait for replies in flight.

        A request thread still streaming when the interpreter exits would die inside the
        model's native code, which aborts the whole process. The rig does not close the
        backend or the embedder: they outlive it (one model, many rigs), and whoever
        created them closes them.
        """
        self._server.shutdown()
        interrupt = getattr(self.backend, "interrupt", None)
        if callable(interrupt):
            interrupt()
        self.wait_idle(timeout=30)
        self._server.server_close()

    def __enter__(self) -> Rig:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no request is in flight (e.g. the rig has noticed a client hang up)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout=timeout)

    def chat_log(self) -> list[LogEntry]:
        """Chat requests, through Ollama's API or the OpenAI-compatible one."""
        with self._lock:
            return [e for e in self.log if e.path in CHAT_PATHS]

    def embed_log(self) -> list[LogEntry]:
        with self._lock:
            return [e for e in self.log if e.path == "/api/embed"]

    def open_entry(self, entry: LogEntry) -> None:
        """Log a request as it arrives, so a client never sees its answer before the log does."""
        with self._lock:
            self.log.append(entry)
        with self._idle:
            self._in_flight += 1

    def record(self, entry: LogEntry) -> None:
        with self._idle:
            self._in_flight -= 1
            self._idle.notify_all()
        with self._lock:
            if self.log_file is not None:
                with self.log_file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(asdict(entry)) + "\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    rig: Rig

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (timeouts, injected drops) are expected, not news."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two writes; with Nagle's algorithm on, the second waits for
    # the client's delayed ACK (~40 ms on Linux), which real Ollama does not cost.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- routing --------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path == "/":
            self._send_text(200, "Ollama is running")
        elif self.path == "/api/version":
            self._send_json(200, {"version": OLLAMA_VERSION})
        elif self.path == "/v1/models":
            names = self.server.rig.models
            self._send_json(200, {"object": "list", "data": [_openai_model(m) for m in names]})
        elif self.path == "/api/tags" or self.path == "/api/ps":
            rig = self.server.rig
            names = (*rig.models, *rig.embed_models)
            self._send_json(200, {"models": [_model_entry(m) for m in names]})
        else:
            self._send_json(404, {"error": "not found"})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._read_json()
        if self.path == "/api/show":
            self._show(body)
        elif self.path == "/api/chat":
            self._chat(body)
        elif self.path == "/api/embed":
            self._embed(body)
        elif self.path == "/v1/chat/completions":
            self._openai_chat(body)
        else:
            self._send_json(404, {"error": f"unknown endpoint {self.path}"})

    # -- endpoints ------------------------------------------------------------------

    def _show(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or body.get("name") or "")
        if name not in self.server.rig.models:
            self._send_json(404, {"error": f"model '{name}' not found"})
            return
        self._send_json(
            200,
            {
                "modelfile": f"FROM {name}",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": _model_entry(name)["details"],
                "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 32768},
                "capabilities": ["completion"],
            },
        )

    def _chat(self, body: dict[str, Any]) -> None:
        rig = self.server.rig
        request = ChatRequest(
            model=str(body.get("model", "")),
            messages=list(body.get("messages") or []),
            format=body.get("format") or None,
            options=dict(body.get("options") or {}),
            stream=bool(body.get("stream", True)),
            think=body.get("think"),
        )
        entry = _logged(rig, "/api/chat", request)
        try:
            if request.model not in rig.models:
                entry.status = 404
                self._send_json(
                    404, {"error": f'model "{request.model}" not found, try pulling it first'}
                )
                return
            with rig.serial:
                answer = rig.backend.answer(request)
                if isinstance(answer, Fault):
                    entry.fault = answer.kind
                    self._fault(answer, request, entry)
                else:
                    self._reply(answer, request, entry)
        finally:
            entry.end = entry.end or time.time()
            rig.record(entry)

    def _openai_chat(self, body: dict[str, Any]) -> None:
        """The OpenAI chat API (what LM Studio, llama-server and vLLM speak), answered by the
        same backend: a JSON schema in ``response_format`` becomes the request's format."""
        rig = self.server.rig
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        options = {"num_predict": body.get("max_completion_tokens") or body.get("max_tokens")}
        options |= {k: body[k] for k in ("temperature", "seed") if k in body}
        request = ChatRequest(
            model=str(body.get("model", "")),
            messages=list(body.get("messages") or []),
            format=schema,
            options={k: v for k, v in options.items() if v is not None},
            stream=bool(body.get("stream", False)),
        )
        entry = _logged(rig, "/v1/chat/completions", request)
        try:
            if request.model not in rig.models:
                entry.status = 404
                error = {"message": f"model '{request.model}' not found", "type": "not_found"}
                self._send_json(404, {"error": error})
                return
            with rig.serial:
                answer = rig.backend.answer(request)
                if isinstance(answer, Fault):
                    entry.fault = answer.kind
                    bad = self._openai_fault(answer, entry)
                    if bad is not None:
                        self._openai_reply(bad, request, entry)
                    return
                self._openai_reply(answer, request, entry)
        finally:
            entry.end = entry.end or time.time()
            rig.record(entry)

    def _openai_fault(self, fault: Fault, entry: LogEntry) -> Reply | None:
        """Inject a fault the way an OpenAI-compatible server shows it; a fault that is a bad
        answer comes back as that answer."""
        if fault.kind == "invalid_json":
            return Reply('{"unfinished": [1, 2,')
        if fault.kind == "garbage":
            return Reply("lorem ipsum <<<>>> ]]] not an answer")
        if fault.kind == "slow":
            time.sleep(fault.delay or 30.0)
            return Reply("too late")
        if fault.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return None
        if fault.kind == "stream_error":  # a piece, then an error event, as vLLM sends
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            piece = {"choices": [{"index": 0, "delta": {"content": "partial"}}]}
            self._sse(json.dumps(piece))
            self._sse(json.dumps({"error": {"message": "the model crashed", "type": "server"}}))
            self.wfile.write(b"0\r\n\r\n")
            return None
        entry.status = 404 if fault.kind == "not_found" else 500
        self._send_json(entry.status, {"error": {"message": f"injected {fault.kind}"}})
        return None

    def _openai_reply(self, reply: Reply, request: ChatRequest, entry: LogEntry) -> None:
        """A completion, or server-sent events read piece by piece (a client that stops
        reading stops the model, as with Ollama's stream)."""
        if reply.delay:
            time.sleep(reply.delay)
        limit = int(request.options.get("num_predict") or 1024)
        if reply.pieces is not None:
            produced: Iterator[str] = iter(reply.pieces)
            source: Iterator[str] = itertools.islice(produced, limit)
        else:
            produced = iter(())
            source = iter([reply.content[i : i + 24] for i in range(0, len(reply.content), 24)])
        stamp = {"id": "chatcmpl-rig", "created": int(entry.start), "model": request.model}
        if not request.stream:
            text = entry.reply = "".join(source)
            _finish(produced)
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            usage = self._usage(reply, entry, len(text) // 4)
            self._send_json(200, {**stamp, "object": "chat.completion", "choices": [choice],
                                  "usage": usage})  # fmt: skip
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = {**stamp, "object": "chat.completion.chunk"}
        try:
            for piece in source:
                self._sse(
                    json.dumps({**chunk, "choices": [{"index": 0, "delta": {"content": piece}}]})
                )
                entry.pieces_sent += 1
                entry.reply += piece
            _finish(produced)
            done = {"index": 0, "delta": {}, "finish_reason": "stop"}
            self._sse(json.dumps({**chunk, "choices": [done]}))
            usage = self._usage(reply, entry, entry.pieces_sent)
            self._sse(json.dumps({**chunk, "choices": [], "usage": usage}))
            self._sse("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            entry.client_stopped = True
            self.close_connection = True
        finally:
            _close(reply.pieces)

    @staticmethod
    def _usage(reply: Reply, entry: LogEntry, written: int) -> dict[str, int]:
        entry.prompt_tokens = reply.prompt_tokens or max(entry.prompt_chars // 4, 1)
        entry.eval_tokens = reply.eval_tokens or max(written, 1)
        entry.end = time.time()
        return {
            "prompt_tokens": entry.prompt_tokens,
            "completion_tokens": entry.eval_tokens,
            "total_tokens": entry.prompt_tokens + entry.eval_tokens,
        }

    def _sse(self, data: str) -> None:
        line = f"data: {data}\n\n".encode()
        self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        self.wfile.flush()

    def _embed(self, body: dict[str, Any]) -> None:
        """Ollama's batch embedding: ``input`` is a string or a list of strings."""
        rig = self.server.rig
        model = str(body.get("model", ""))
        raw = body.get("input", "")
        texts = [str(t) for t in raw] if isinstance(raw, list) else [str(raw)]
        entry = LogEntry(
            path="/api/embed",
            model=model,
            prompt_chars=sum(map(len, texts)),
            start=time.time(),
            inputs=texts,
        )
        rig.open_entry(entry)
        try:
            if rig.embedder is None or model not in rig.embed_models:
                entry.status = 404
                self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
                return
            vectors = rig.embedder.embed(texts)
            entry.end = time.time()
            entry.prompt_tokens = max(entry.prompt_chars // 4, 1)
            elapsed_ns = int((entry.end - entry.start) * 1e9)
            self._send_json(
                200,
                {
                    "model": model,
                    "embeddings": vectors,
                    "total_duration": elapsed_ns,
                    "load_duration": 1_000_000,
                    "prompt_eval_count": entry.prompt_tokens,
                },
            )
        finally:
            entry.end = entry.end or time.time()
            rig.record(entry)

    def _reply(self, reply: Reply, request: ChatRequest, entry: LogEntry) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        if reply.pieces is not None:
            self._reply_pieces(reply, request, entry)
            return
        entry.prompt_tokens = reply.prompt_tokens or max(entry.prompt_chars // 4, 1)
        entry.eval_tokens = reply.eval_tokens or max(len(reply.content) // 4, 1)
        entry.end = time.time()
        entry.reply = reply.content
        final = _final(entry)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.thinking is not None:
            message["thinking"] = reply.thinking
        if not request.stream:
            self._send_json(200, {**_stamp(request.model), "message": message, **final})
            return
        chunks = [_stamp(request.model) | {"message": m, "done": False} for m in _split(message)]
        chunks.append(
            _stamp(request.model) | {"message": {"role": "assistant", "content": ""}} | final
        )
        self._stream(chunks)

    def _reply_pieces(self, reply: Reply, request: ChatRequest, entry: LogEntry) -> None:
        """Stream a reply as it is produced, stopping when the client stops reading."""
        limit = int(request.options.get("num_predict") or 1024)
        pieces = iter(reply.pieces or ())
        if not request.stream:
            text = "".join(itertools.islice(pieces, limit))
            _finish(pieces)
            counted = Reply(text, prompt_tokens=reply.prompt_tokens, eval_tokens=reply.eval_tokens)
            self._reply(counted, request, entry)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for piece in itertools.islice(pieces, limit):
                self._chunk(_stamp(request.model) | {"message": _text(piece), "done": False})
                entry.pieces_sent += 1
                entry.reply += piece
                if reply.piece_delay:
                    time.sleep(reply.piece_delay)
            _finish(pieces)
            entry.prompt_tokens = reply.prompt_tokens or max(entry.prompt_chars // 4, 1)
            entry.eval_tokens = reply.eval_tokens or entry.pieces_sent
            entry.end = time.time()
            self._chunk(_stamp(request.model) | {"message": _text("")} | _final(entry))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            entry.client_stopped = True
            self.close_connection = True
        finally:
            _close(pieces)

    def _chunk(self, payload: dict[str, Any]) -> None:
        line = (json.dumps(payload) + "\n").encode()
        self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        self.wfile.flush()

    def _fault(self, fault: Fault, request: ChatRequest, entry: LogEntry) -> None:
        kind = fault.kind
        if kind == "http500":
            entry.status = 500
            self._send_json(500, {"error": "llama runner process has terminated"})
        elif kind == "not_found":
            entry.status = 404
            self._send_json(
                404, {"error": f'model "{request.model}" not found, try pulling it first'}
            )
        elif kind == "invalid_json":
            self._reply(Reply('{"unfinished": [1, 2,'), request, entry)
        elif kind == "garbage":
            self._reply(Reply("lorem ipsum <<<>>> ]]] not an answer"), request, entry)
        elif kind == "slow":
            time.sleep(fault.delay or 30.0)
            self._reply(Reply("too late"), request, entry)
        elif kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif kind == "stream_error":
            first = _stamp(request.model) | {
                "message": {"role": "assistant", "content": "partial"},
                "done": False,
            }
            self._stream([first, {"error": "an error was encountered while running the model"}])

    # -- HTTP helpers ---------------------------------------------------------------

    def _read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            data = {}
        return data if isinstance(data, dict) else {}

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_text(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, chunks: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in chunks:
            self._chunk(chunk)
        self.wfile.write(b"0\r\n\r\n")


def _logged(rig: Rig, path: str, request: ChatRequest) -> LogEntry:
    """A chat request's log entry, opened as it arrives."""
    entry = LogEntry(
        path=path,
        model=request.model,
        schema=request.schema_title,
        options=request.options,
        stream=request.stream,
        prompt_chars=len(request.prompt_text),
        start=time.time(),
        messages=request.messages,
    )
    rig.open_entry(entry)
    return entry


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


def _finish(pieces: Any) -> None:
    """Read one piece past the limit, then stop: a real model's reply takes in its token
    counts after its last piece, which a reply cut at ``num_predict`` would miss (an endless
    scripted one only loses a piece nobody sees)."""
    next(pieces, None)
    _close(pieces)


def _close(pieces: Any) -> None:
    """Tell a generator-backed stream (the tiny model) to stop producing."""
    close = getattr(pieces, "close", None)
    if callable(close):
        close()


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


def _stamp(model: str) -> dict[str, Any]:
    return {"model": model, "created_at": datetime.now(UTC).isoformat().replace("+00:00", "Z")}


def _openai_model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 1767225600, "owned_by": "rig"}


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2026-01-01T00:00:00Z",
        "size": 253_000_000,
        "digest": "0" * 64,
        "details": {
            "format": "gguf",
            "family": "gemma3",
            "families": ["gemma3"],
            "parameter_size": "270M",
            "quantization_level": "Q4_K_M",
        },
    }
