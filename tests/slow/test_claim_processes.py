"""Processes, each a `ponder` of its own machine name, resume one run at the same instant
on one run history (a data folder's SQLite, or PostgreSQL): exactly one runs it. Once that
one is killed, the run is taken at once by the next."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
CLAIMANTS = 6
# Each child connects first, then waits for one instant shared by all, claims, and holds
# what it won until it is killed.
CHILD = """
import os, sys, time
from ponder.core.errors import RunBusyError
from ponder.services.storage.runs import RunHistory
from ponder.settings.environment import read_environment

history = RunHistory(read_environment().machine)
history.get("t")
at = float(sys.argv[1])
time.sleep(max(at - time.time() - 0.05, 0))
while time.time() < at:
    pass
try:
    history.start("t", "How do tides work?", {})
except RunBusyError as refused:
    print("lost", refused, flush=True)
else:
    print("won", os.getpid(), flush=True)
    time.sleep(120)
"""


@pytest.fixture(params=["sqlite", "postgres"])
def shared_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "PONDER_DATA_DIR": str(tmp_path / "data")}
    if request.param == "postgres":
        env["PONDER_DATABASE_URL"] = request.getfixturevalue("postgres_url")
    return env


def claim_at_once(env: dict[str, str], names: list[str]) -> list[subprocess.Popen[str]]:
    at = str(time.time() + 3)  # every child has connected by then
    return [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, at],
            env={**env, "PONDER_HOST_ID": name},
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]


def outcomes(children: list[subprocess.Popen[str]]) -> tuple[subprocess.Popen[str], list[str]]:
    """The winner (still holding the run) and what each loser was told."""
    said = {child: child.stdout.readline() for child in children}  # type: ignore[union-attr]
    [winner] = [child for child, line in said.items() if line.startswith("won ")]
    return winner, [line for line in said.values() if line.startswith("lost ")]


def test_of_processes_claiming_one_run_at_once_exactly_one_wins(
    shared_env: dict[str, str],
) -> None:
    children = claim_at_once(shared_env, [f"machine-{n}" for n in range(CLAIMANTS)])
    try:
        winner, lost = outcomes(children)
        assert len(lost) == CLAIMANTS - 1
        assert all(f"another process here (pid {winner.pid}," in line for line in lost), lost
        winner.send_signal(signal.SIGKILL)
        winner.wait(timeout=10)
        # Killed: its process is gone, so the next claimant need not wait for its lease.
        again = claim_at_once(shared_env, ["machine-next", "machine-last"])
        children += again
        next_winner, lost = outcomes(again)
        assert len(lost) == 1 and f"pid {next_winner.pid}," in lost[0]
    finally:
        for child in children:
            child.kill()
            child.wait()
