"""The rig's HTTP side: one request handler for Ollama's API and the OpenAI chat API, with
the tags, show, version, ps and embeddings Ollama's clients ask besides."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ponder.testing.faults import inject
from ponder.testing.log import LogEntry
from ponder.testing.ollama_wire import OllamaWire
from ponder.testing.openai_wire import OpenAIWire, model_listing
from ponder.testing.replies import ChatRequest, Fault
from ponder.testing.wire import Wire, send_json, send_text

OLLAMA_VERSION = "0.12.6"


WIRES: dict[str, type[Wire]] = {wire.path: wire for wire in (OllamaWire, OpenAIWire)}


class RigServer(ThreadingHTTPServer):
    daemon_threads = True
    rig: Any  # the Rig that owns it (ponder.testing.server, which imports this module)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self._open_guard = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_guard:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_guard:
            self._open.discard(request)
        super().shutdown_request(request)

    def hang_up(self) -> None:
        """Close the connections clients keep open between requests, as a server that
        stops does: their next request must find another way (or another host)."""
        with self._open_guard:
            kept = list(self._open)
        for connection in kept:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (timeouts, injected drops) are expected, not news."""


class RigHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two writes; with Nagle's algorithm on, the second waits for
    # the client's delayed ACK (~40 ms on Linux), which real Ollama does not cost.
    disable_nagle_algorithm = True
    server: RigServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- routing --------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path == "/":
            send_text(self, 200, "Ollama is running")
        elif self.path == "/api/version":
            send_json(self, 200, {"version": OLLAMA_VERSION})
        elif self.path == "/v1/models":
            names = self.server.rig.models
            send_json(self, 200, {"object": "list", "data": [model_listing(m) for m in names]})
        elif self.path == "/api/tags" or self.path == "/api/ps":
            rig = self.server.rig
            names = (*rig.models, *rig.embed_models)
            send_json(self, 200, {"models": [_model_entry(m) for m in names]})
        else:
            send_json(self, 404, {"error": "not found"})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._read_json()
        if self.path in WIRES:
            self._chat(body, WIRES[self.path])
        elif self.path == "/api/show":
            self._show(body)
        elif self.path == "/api/embed":
            self._embed(body)
        else:
            send_json(self, 404, {"error": f"unknown endpoint {self.path}"})

    # -- endpoints ------------------------------------------------------------------

    def _chat(self, body: dict[str, Any], wire_format: type[Wire]) -> None:
        """A chat in either wire format: logged as it arrives, answered by the backend (or
        a fault), one at a time when the rig serves one at a time."""
        rig = self.server.rig
        request = wire_format.parse(body)
        entry = _logged(rig, wire_format.path, request)
        wire = wire_format(self, request, entry)
        try:
            if request.model not in rig.models:
                entry.status = 404
                wire.model_not_found()
                return
            with rig.serial:
                answer = rig.backend.answer(request)
                if isinstance(answer, Fault):
                    entry.fault = answer.kind
                    inject(answer, wire)
                else:
                    wire.reply(answer)
        finally:
            entry.end = entry.end or time.time()
            rig.record(entry)

    def _show(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or body.get("name") or "")
        if name not in self.server.rig.models:
            send_json(self, 404, {"error": f"model '{name}' not found"})
            return
        send_json(
            self,
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
                send_json(self, 404, {"error": f'model "{model}" not found, try pulling it first'})
                return
            vectors = rig.embedder.embed(texts)
            entry.end = time.time()
            entry.prompt_tokens = max(entry.prompt_chars // 4, 1)
            elapsed_ns = int((entry.end - entry.start) * 1e9)
            send_json(
                self,
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

    # -- HTTP helpers ---------------------------------------------------------------

    def _read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            data = {}
        return data if isinstance(data, dict) else {}


def _logged(rig: Any, path: str, request: ChatRequest) -> LogEntry:
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
