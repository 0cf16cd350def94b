"""Helpers shared by several test modules."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ponder.testing import replies

ROOT = Path(__file__).resolve().parents[2]  # the checkout
SAMPLES = Path(__file__).parent / "samples"  # texts real small models wrote, recorded
SERVERS = Path(__file__).parent / "servers"  # programs the tests start (an MCP server)


def make_pdf(lines: list[str]) -> bytes:
    """A minimal one-page PDF whose text pypdf can extract."""
    ops = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({t}) '" for t in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(ops)} >>\nstream\n{ops}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = "%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode("latin-1")


TAVILY_KEY = "tvly-test-key"


class QuietServer(ThreadingHTTPServer):
    """A test server that does not print a traceback when the client hangs up: ponder
    closing a connection after an error answer is no fault (and tests check that nothing
    printed a traceback)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class TavilyServer:
    """POST /search as Tavily answers it; 401 for any other key. Records each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        tavily = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                tavily.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), **body}
                )
                if self.headers.get("Authorization") != f"Bearer {TAVILY_KEY}":
                    self._send(
                        401, {"detail": {"error": "Unauthorized: missing or invalid API key."}}
                    )
                    return
                results = [
                    {
                        "title": f"Tides explained {i}",
                        "url": f"https://tides.example/{i}",
                        "content": "Tides rise and fall twice a day because the Moon's "
                        f"gravity pulls the oceans (source {i}).",
                        "score": 0.9 - i / 10,
                        "raw_content": None,
                    }
                    for i in range(int(body.get("max_results") or 5))
                ]
                self._send(200, {"query": body["query"], "results": results, "response_time": 0.1})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: Any) -> None:
                return None

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


Route = Callable[[BaseHTTPRequestHandler], None]


def respond(body: bytes | str, kind: str = "text/html; charset=utf-8", status: int = 200) -> Route:
    data = body.encode() if isinstance(body, str) else body

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return handle


def redirect(location: str) -> Route:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return handle


def slow(seconds: float, route: Route) -> Route:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        route(handler)

    return handle


class Site:
    """A local HTTP server with routes; counts requests and concurrent requests."""

    def __init__(self, default: Route | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.default = default or respond("missing", status=404)
        self.hits: list[str] = []
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with site._lock:
                    site.hits.append(self.path)
                    site.active += 1
                    site.peak = max(site.peak, site.active)
                try:
                    path = urlsplit(self.path).path
                    route = site.routes.get(self.path) or site.routes.get(path) or site.default
                    route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the reader stopped reading, as it should at the size cap
                finally:
                    with site._lock:
                        site.active -= 1

            def log_message(self, *args: Any) -> None:
                return None

        class Server(ThreadingHTTPServer):
            request_queue_size = 64
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def over_corpus(rig: Any, corpus: Any, **extra: Any) -> dict[str, Any]:
    """Research settings: the rig's model, local search over ``corpus``, then ``extra``."""
    model = rig.models[0]
    return {
        "model": model,
        "ollama_base_url": rig.url,
        "search": "local",
        "docs": [str(corpus)],
        **extra,
    }


def tiny_settings(rig: Any, corpus: Any, **extra: Any) -> dict[str, Any]:
    """Small budgets that keep a real-model run to a few short calls."""
    budgets = {
        "max_loops": 1,
        "queries_per_round": 1,
        "num_ctx": 2048,
        "num_predict": 96,
        "summary_tokens": 200,
        "max_retries": 1,
        "request_timeout": 150,
    }
    return over_corpus(rig, corpus, **{**budgets, **extra})


def source_blocks(request: Any) -> list[tuple[int, str]]:
    """The numbered source blocks of a SummaryUpdate prompt, as (number, text)."""
    return replies.source_blocks(request)


def sensible_summary(request: Any) -> dict[str, Any]:
    """A SummaryUpdate as a capable model writes it (the rig's own default)."""
    return replies.restated_sources(request)


def long_summary(request: Any, count: int = 8) -> dict[str, Any]:
    """``count`` distinct findings of nearly the maximum length, each grounded in a source,
    so the running summary is at its token budget."""
    blocks = source_blocks(request)
    findings = []
    for i in range(count):
        number, text = blocks[i % len(blocks)]
        findings.append({"statement": f"Point {chr(97 + i)}: {text[:220]}", "sources": [number]})
    return {"findings": findings}


def ask_once(scripted: Any) -> None:
    """The scripted model asks one clarifying question, then never again."""
    import itertools

    asked = itertools.count()
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": next(asked) == 0,
        "question": "Which coast do you mean?",
        "verification": "ok",
    }


def findings_by_source(request: Any) -> dict[int, str]:
    """The findings of a report prompt's notes, by the source number each cites first."""
    return replies.noted_findings(request)


def python_docs() -> Any:
    """The HTML of Debian's python3.11-doc that `make docs` unpacks into the checkout's
    .cache (a prerequisite of `make test`)."""
    from pathlib import Path

    import pytest

    from ponder.testing.pydocs import DocsMissing, html_root

    try:
        return html_root(Path(__file__).resolve().parents[2] / ".cache")
    except DocsMissing as exc:
        pytest.fail(str(exc))


def write_corpus(folder: Path) -> Path:
    """A small corpus about tides and the Moon, written by the test."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tides.md").write_text(
        "# Tides\n\nTides are the rise and fall of sea levels caused by the gravitational "
        "pull of the Moon and the Sun on the Earth's oceans. Most coasts see two high tides "
        "a day.\n\nSpring tides happen when the Sun and Moon align; neap tides when they are "
        "at right angles.\n",
        encoding="utf-8",
    )
    (folder / "moon.txt").write_text(
        "The Moon orbits the Earth every 27.3 days. Its gravity raises a bulge in the ocean on "
        "the side facing it and another on the far side, which is why tides come twice a day.\n",
        encoding="utf-8",
    )
    (folder / "harbours.rst").write_text(
        "Harbours\n========\n\nHarbour pilots read tide tables to know when ships can enter "
        "shallow ports safely at high tide.\n",
        encoding="utf-8",
    )
    return folder


class UiServer:
    """`ponder ui` in its own process (so a test can SIGKILL it), over ``data``'s history.

    ``env`` is the operator's environment (PONDER_MODEL, PONDER_OLLAMA_BASE_URL, …); the
    data and cache folders are the test's own, kept across restarts."""

    def __init__(self, env: dict[str, str], port: int | None = None, python: str = "") -> None:
        import os

        self.env = {**os.environ, **env}
        self.python = python or sys.executable
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: Any = None

    def start(self, timeout: float = 30.0) -> UiServer:
        import subprocess

        import httpx

        command = [self.python, "-m", "ponder", "ui", "--port", str(self.port)]
        self.proc = subprocess.Popen(command, env=self.env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"`ponder ui` exited: {self.proc.stderr.read()}")
            try:
                httpx.get(self.url + "/static/style.css", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError("`ponder ui` did not answer in time")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> int:
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except Exception:
                self.proc.kill()
                raise
        return int(self.proc.returncode)


@contextlib.contextmanager
def closed_address() -> Iterator[str]:
    """An address on loopback that refuses connections for as long as the block runs: its
    port is bound and never listens, so no other process (a parallel test's server) can
    take it, as it could take a port :func:`free_port` only found free."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_mcp_http(env: dict[str, str], host: str) -> tuple[Any, int]:
    """`ponder mcp --http` on a free port, in ``env``: the process and its port."""
    import socket
    import subprocess

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "ponder", "mcp", "--http", str(port), "--host", host],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process, port
        assert process.poll() is None and time.monotonic() < deadline, "no HTTP server"
        time.sleep(0.1)
