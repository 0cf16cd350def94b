"""`langgraph dev` serves the graph offline; a run through its HTTP API returns a report."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support import Site, respond

from ponder.testing import Rig

ROOT = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 90
API_LINE = re.compile(r"API:\s*(?:\x1b\[[0-9;]*m)*(http://127\.0\.0\.1:(\d+))")


def langgraph_cli() -> str | None:
    beside = Path(sys.executable).parent / "langgraph"
    return str(beside) if beside.exists() else shutil.which("langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def studio(tmp_path: Path) -> Iterator[str]:
    """A `langgraph dev` server (own process group, killed afterwards); yields its URL."""
    cli = langgraph_cli()
    if cli is None:
        pytest.skip("langgraph-cli is not installed (pip install -e '.[dev]')")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "NO_COLOR": "1",
    }
    command = [cli, "dev", "--no-browser", "--no-reload", "--port", str(free_port())]
    command += ["--config", str(scratch_config(tmp_path))]
    server = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        yield wait_for_url(server, lines)
    finally:
        stop(server)


def scratch_config(folder: Path) -> Path:
    """The repository's langgraph.json with its paths made absolute.

    `langgraph dev` resolves graph paths against its working directory and keeps its state in
    ./.langgraph_api; running it from a scratch folder keeps that state out of the checkout.
    """
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["graphs"] = {
        name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()
    }
    config["dependencies"] = [str(ROOT / dep) for dep in config["dependencies"]]
    target = folder / "langgraph.json"
    target.write_text(json.dumps(config))
    return target


def stop(server: subprocess.Popen[str]) -> None:
    """Stop the server and its workers (its own process group)."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, sig)
        try:
            server.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def wait_for_url(server: subprocess.Popen[str], lines: list[str]) -> str:
    """Read the server's output until it names its port (it may move off a busy one)."""
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            lines.append(line)
            match = API_LINE.search(line)
            if match and not found:
                found.append(match.group(1))
            if found and "Application started up" in line:
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    ready.wait(STARTUP_SECONDS)
    time.sleep(0.2)  # a server that failed to load its graph exits right after starting
    if not found or server.poll() is not None:
        raise AssertionError("langgraph dev did not start:\n" + "".join(lines[-40:]))
    return found[0]


def searxng_with_pages() -> Site:
    """A SearXNG JSON API on 127.0.0.1 whose results link to pages on the same server."""
    web = Site()
    results = [{"url": f"{web.url}/page/{i}", "title": f"Page {i}", "content": "Tides."}
               for i in range(2)]  # fmt: skip
    web.routes["/search"] = respond(json.dumps({"results": results}), "application/json")
    page = "<p>Tides rise twice a day because the Moon pulls the oceans.</p>" * 5
    for i in range(2):
        web.routes[f"/page/{i}"] = respond(f"<html><body><article>{page}</article></body></html>")
    return web


def run_config(rig: Rig, corpus: Path, **extra: object) -> dict[str, object]:
    return {
        "configurable": {
            "model": "scripted",
            "ollama_base_url": rig.url,
            "search": "local",
            "docs": [str(corpus)],
            "mode": "loop",
            "max_loops": 1,
            **extra,
        }
    }


def run_and_wait(client: httpx.Client, config: dict[str, object]) -> dict[str, object]:
    thread = client.post("/threads", json={}).json()["thread_id"]
    result = client.post(
        f"/threads/{thread}/runs/wait",
        json={"assistant_id": "ponder", "input": {"topic": "How do tides work?"}, "config": config},
    )
    assert result.status_code == 200, result.text
    output = result.json()
    assert "report" in output, output  # an error comes back as {"__error__": ...}
    return dict(output)


def test_langgraph_dev_serves_the_graph_and_runs_return_reports(
    studio: str, rig: Rig, corpus: Path
) -> None:
    with httpx.Client(base_url=studio, timeout=120) as client:
        assistants = client.post("/assistants/search", json={"graph_id": "ponder"}).json()
        assert assistants, "the ponder graph is not registered"
        schemas = client.get(f"/assistants/{assistants[0]['assistant_id']}/schemas").json()
        assert set(schemas["input_schema"]["properties"]) == {"topic", "messages"}
        settings = schemas.get("context_schema") or schemas["config_schema"]
        assert settings["properties"]["max_loops"]["default"] == 3
        assert settings["properties"]["max_loops"]["description"]
        loop = run_and_wait(client, run_config(rig, corpus))
        deep = run_and_wait(client, run_config(rig, corpus, mode="deep", allow_clarification=False))
        web = searxng_with_pages()
        try:
            # Web search with the on-disk cache and full pages: nothing may block the loop.
            online = run_and_wait(
                client,
                run_config(rig, corpus, search="searxng", searxng_url=web.url,
                           fetch_full_page=True, allow_private_urls=True),
            )  # fmt: skip
        finally:
            web.close()
    for output in (loop, deep, online):
        report = str(output["report"])
        assert report.startswith("# ") and "## Sources" in report and "[1]" in report
        assert output["sources"]
    assert any(e.schema == "SupervisorDecision" for e in rig.chat_log())
    assert any(path.startswith("/page/") for path in web.hits)  # pages were read
    assert all(s["url"].startswith(web.url) for s in online["sources"])  # type: ignore[index,union-attr]
