"""`langgraph dev` started for the tests: ponder's langgraph.json, served from a scratch folder
with the environment its operator gives it; one server per module or session, since each
start costs seconds."""

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ponder.testing import Rig, ScriptedBackend
from support import TAVILY_KEY, TavilyServer, write_corpus

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 90
API_LINE = re.compile(r"API:\s*(?:\x1b\[[0-9;]*m)*(http://127\.0\.0\.1:(\d+))")


def langgraph_cli() -> str | None:
    beside = Path(sys.executable).parent / "langgraph"
    return str(beside) if beside.exists() else shutil.which("langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scratch_config(folder: Path, *, auth: bool = True) -> Path:
    """The repository's langgraph.json with its paths made absolute (``auth=False``: without
    its authentication handler, as a bare `langgraph dev` would serve the graph).

    `langgraph dev` resolves graph paths against its working directory and keeps its state in
    ./.langgraph_api; running it from a scratch folder keeps that state out of the checkout.
    """
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["graphs"] = {
        name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()
    }
    config["dependencies"] = [str(ROOT / dep) for dep in config["dependencies"]]
    if auth:
        config["auth"]["path"] = str(ROOT / config["auth"]["path"].removeprefix("./"))
    else:
        config.pop("auth")
    target = folder / "langgraph.json"
    target.write_text(json.dumps(config))
    return target


@contextlib.contextmanager
def langgraph_dev(folder: Path, env: dict[str, str], *, auth: bool = True) -> Iterator[str]:
    """A `langgraph dev` server (own process group, stopped afterwards); yields its URL."""
    cli = langgraph_cli()
    assert cli is not None, "langgraph-cli is part of the dev extra"
    folder.mkdir(parents=True, exist_ok=True)
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PONDER_", "OLLAMA_"))},
        "PYTHONPATH": str(ROOT / "src"),
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "NO_COLOR": "1",
        **env,
    }
    config = str(scratch_config(folder, auth=auth))
    for attempt in (1, 2):  # a free port can be taken by another program before the bind
        port = free_port()
        command = [cli, "dev", "--no-browser", "--no-reload", "--port", str(port)]
        # Where ponder's auth counts a caller's runs: the server's own API.
        own = {"PONDER_SERVER_SELF_URL": f"http://127.0.0.1:{port}"} if auth else {}
        process = subprocess.Popen(
            [*command, "--config", config], cwd=folder, env={**full_env, **own},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        lines: list[str] = []
        try:
            url = wait_for_url(process, lines)
            until_listening(url, process, lines)
        except AssertionError:
            stop(process)
            if attempt == 2:
                raise
            continue
        try:
            yield url
        finally:
            stop(process)
        return


def until_listening(url: str, server: subprocess.Popen[str], lines: list[str]) -> None:
    """Wait until the server accepts connections (it names its URL before it binds)."""
    port = int(url.rsplit(":", 1)[1])
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline and server.poll() is None:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("langgraph dev is not listening:\n" + "".join(lines[-40:]))


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


# -- one shared server, for every module that needs a team's server -----------------------

TOKENS = {"alice": "tok-alice-0c1f", "bob": "tok-bob-7e2a"}
TEAM_MAX_LOOPS, TEAM_RUNS = 4, 2


@dataclass
class Team:
    """A LangGraph Server as a team runs it: authentication on, settings in its environment."""

    url: str
    rig: Rig  # the server's Ollama (the caller never names it)
    docs: Path  # the operator's documents (PONDER_DOCS): the only ones a caller may search
    outside: Path  # a folder on the same disk the operator never offered
    tavily: TavilyServer  # the operator's Tavily (TAVILY_API_KEY goes there, and only there)

    def client(self, user: str | None = "alice") -> Any:
        from langgraph_sdk import get_client

        headers = {"Authorization": f"Bearer {TOKENS[user]}"} if user else None
        return get_client(url=self.url, headers=headers)


def start_team(folder: Path) -> Iterator[Team]:
    docs = write_corpus(folder / "operator-docs")
    outside = folder / "private"
    outside.mkdir()
    (outside / "payroll.md").write_text(
        "# Payroll\n\nThe tide bonus is paid in secret-ledger-4417 amounts.\n", encoding="utf-8"
    )
    # In the offered folder, but not offered: a link out of it, and a hidden folder.
    (docs / "bonus.md").symlink_to(outside / "payroll.md")
    (docs / ".drafts").mkdir()
    (docs / ".drafts" / "bonus.md").write_text("Tide bonus draft: secret-ledger-4417.\n")
    tavily = TavilyServer()
    with Rig(ScriptedBackend(), models=("scripted",)) as rig:
        env = {
            "OLLAMA_HOST": rig.url,
            "PONDER_MODEL": "scripted",
            "PONDER_DOCS": str(docs),
            "PONDER_CALLER_SEARCHES": "duckduckgo,local,tavily,searxng",
            # Nothing listens there: a caller's search=searxng fails, and says so.
            "PONDER_SEARXNG_URL": f"http://127.0.0.1:{free_port()}",
            "PONDER_TAVILY_URL": tavily.url,
            "TAVILY_API_KEY": TAVILY_KEY,
            "PONDER_DATA_DIR": str(folder / "server-data"),
            "PONDER_CACHE_DIR": str(folder / "server-cache"),
            "PONDER_SERVER_TOKENS": ",".join(f"{u}={t}" for u, t in TOKENS.items()),
            # The operator's ceilings (ponder.settings.ceilings): a caller may ask at most 4 rounds,
            # and have at most 2 runs running or queued at once.
            "PONDER_CALLER_MAX_LOOPS": str(TEAM_MAX_LOOPS),
            "PONDER_CALLER_RUNS": str(TEAM_RUNS),
        }
        try:
            with langgraph_dev(folder / "server", env) as url:
                yield Team(url, rig, docs, outside, tavily)
        finally:
            tavily.close()
