"""Kill -9 a run mid-way; `ponder resume ID` finishes it without redoing finished nodes.

The proof is the rig's request log (a separate process, so it outlives the kill): every
model call that had completed before the kill belongs to a checkpointed node, and none of
those calls is made again after the resume.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ROUNDS = 2  # the kill lands in round 2; round 1 is complete by then
DELAY = 0.5  # seconds per model call: a window to kill in


def child_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), **extra}


@pytest.fixture
def rig_process(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A scripted rig in its own process, logging every request to JSONL."""
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "delay": DELAY,
                "overrides": {
                    "QueryPlan": {"rationale": "start", "queries": ["tides"]},
                    "Reflection": {
                        "is_sufficient": False,
                        "knowledge_gap": "more",
                        "follow_up_queries": ["moon orbit"],  # round 2's query
                        "scope": "focused",
                        "subtopics": [],
                    },
                },
            }
        )
    )
    log = tmp_path / "rig.jsonl"
    rig = subprocess.Popen(
        [sys.executable, "-m", "ponder.testing", "--backend", "scripted", "--port", "0",
         "--script", str(script), "--log", str(log)],
        env=child_env(),
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert rig.stdout is not None
        line = rig.stdout.readline()
        assert line.startswith("READY "), line
        yield line.split()[1], log
    finally:
        rig.send_signal(signal.SIGTERM)
        try:
            rig.wait(timeout=10)
        except subprocess.TimeoutExpired:
            rig.kill()
            rig.wait()


def read_log(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.fixture(params=["sqlite", "postgres"])
def machines(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[dict[str, str], ...]:
    """Where the run starts and where it is resumed: one data folder (SQLite), or two
    machines — two data folders — sharing a PostgreSQL database."""
    if request.param == "sqlite":
        same = child_env()
        return same, same
    database = request.getfixturevalue("postgres_url")
    return tuple(
        child_env(
            PONDER_DATA_DIR=str(tmp_path / machine),
            PONDER_DATABASE_URL=database,
            PONDER_HOST_ID=machine,
        )
        for machine in ("machine-a", "machine-b")
    )


def test_sigkilled_run_resumes_without_redoing_finished_nodes(
    rig_process: tuple[str, Path],
    corpus: Path,
    tmp_path: Path,
    machines: tuple[dict[str, str], dict[str, str]],
) -> None:
    url, log = rig_process
    # Only round 2's query finds this, so round 2 has new material to summarise.
    (corpus / "lunar.md").write_text("The Moon's orbit is elliptical: perigee and apogee.\n")
    work = tmp_path / "work"
    work.mkdir()
    env, elsewhere = machines
    flags = ["--model", "scripted", "--ollama-url", url, "--search", "local"]
    flags += ["--docs", str(corpus), "--mode", "loop", "--loops", str(ROUNDS)]
    run = subprocess.Popen(
        [sys.executable, "-m", "ponder", "How do tides work?", *flags],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(e["schema"] == "Reflection" for e in read_log(log)):
            assert run.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no Reflection was logged"
            time.sleep(0.02)
        time.sleep(DELAY / 2)  # round 2's SummaryUpdate is now in flight
        killed_at = time.time()
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=10)
    finally:
        run.kill()
    assert not list(work.iterdir()), "a killed run must not have written a report"

    listed = subprocess.run(
        [sys.executable, "-m", "ponder", "runs", "--json"],
        env=elsewhere, capture_output=True, text=True, check=True,
    )  # fmt: skip
    (record,) = [json.loads(line) for line in listed.stdout.splitlines()]
    # SIGKILL leaves no chance to record anything, and the run's lease still runs. But the
    # dead process is in this process space (one kernel, one pid namespace), so the run is
    # interrupted at once, even for a "machine" with another PONDER_HOST_ID; a real other
    # machine waits for the lease (tests/unit/test_claims.py).
    assert record["status"] == "interrupted"
    resume = [sys.executable, "-m", "ponder", "resume", record["thread_id"], "--json"]

    resumed_at = time.time()
    done = subprocess.run(
        resume, cwd=work, env=elsewhere, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["stats"]["rounds"] == ROUNDS
    assert Path(report["path"]).exists()

    entries = read_log(log)
    before = Counter(e["schema"] for e in entries if e["end"] < killed_at)
    after = Counter(e["schema"] for e in entries if e["start"] > resumed_at)
    assert before["QueryPlan"] == 1 and before["Reflection"] == 1
    assert after["QueryPlan"] == 0, "generate_query had finished; it must not run again"
    # Each round summarises once across both processes; the last one asks no reflection.
    assert before["SummaryUpdate"] + after["SummaryUpdate"] == ROUNDS
    assert before["Reflection"] + after["Reflection"] == ROUNDS - 1
    assert before[None] == 0 and after[None] == 1  # the report is written once, at the end
