"""What ponder sends a server it runs research on: the caller's bearer token, and no key the
environment holds for another service (the LangGraph SDK would send LANGSMITH_API_KEY)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ponder.api.engine import remote_runs


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # threads/search
            seen.append({k.lower(): v for k, v in self.headers.items()})
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.dumps([]).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_no_key_of_another_service_goes_to_the_server(
    recorder: tuple[str, list[dict[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = recorder
    for name in ("LANGSMITH_API_KEY", "LANGGRAPH_API_KEY", "LANGCHAIN_API_KEY"):
        monkeypatch.setenv(name, "lsv2-not-for-this-server")
    assert asyncio.run(remote_runs(url, "alice-token")) == []
    assert seen and seen[0]["authorization"] == "Bearer alice-token"
    assert all("x-api-key" not in headers for headers in seen)
