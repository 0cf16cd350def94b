"""Each `ponder` command the README shows, run as a process the way a reader runs it.

The rig stands in for Ollama and local servers for Wikipedia and arXiv, through the
environment (support.readme.stand_ins); ``~`` is a home whose notes are about tides. A
command the README adds or changes runs here with no edit to this file, and fails it when
it stops working.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support import UiServer
from support.public_apis import FakeApi, arxiv, mediawiki
from support.readme import expand_home, make_home, ponder_commands, stand_ins

from ponder.testing import Rig

SRC = Path(__file__).resolve().parents[2] / "src"
COMMANDS = [list(c) for c in dict.fromkeys(map(tuple, ponder_commands()))]  # each once


@pytest.fixture
def env(rig: Rig, workdir: Path) -> Iterator[dict[str, str]]:
    wiki, papers = FakeApi(mediawiki), FakeApi(arxiv)
    home = make_home(workdir / "home")
    try:
        yield {
            **os.environ,
            **stand_ins(rig.url, home, wiki.url, papers.url),
            "PYTHONPATH": str(SRC),
            "COLUMNS": "100",
        }
    finally:
        wiki.close()
        papers.close()


def test_the_readme_shows_commands_to_run() -> None:
    assert len(COMMANDS) >= 5
    assert ["ponder", "ui"] in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=lambda words: " ".join(words[1:]))
def test_readme_command_works(
    words: list[str], env: dict[str, str], workdir: Path, rig: Rig
) -> None:
    args = expand_home(words[1:], Path(env["HOME"]))
    if args[:1] == ["ui"]:
        serve_the_page(args, env)
        return
    done = subprocess.run(
        [sys.executable, "-m", "ponder", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    kind = args[0] if args[0] in ("index", "doctor", "runs") else "research"
    if kind == "research":
        assert "Report saved to" in done.stderr
        report = done.stdout.split("\n## Sources", 1)
        assert len(report) == 2 and report[1].strip(), f"no sources: {done.stdout[-800:]}"
        assert rig.chat_log(), "the run asked no model"
    elif kind == "index":
        assert done.stdout.startswith("Indexed")
    elif kind == "doctor":
        assert "✗" not in done.stdout, done.stdout


def serve_the_page(args: list[str], env: dict[str, str]) -> None:
    """`ponder ui` (on a free port rather than 8765, which a reader's may be): the ask page
    answers, offering the rig's model."""
    assert args == ["ui"], f"the README's `ponder ui` has flags this test does not know: {args}"
    server = UiServer({k: v for k, v in env.items() if k != "PYTHONPATH"}).start()
    try:
        page = httpx.get(server.url + "/", timeout=10)
        assert page.status_code == 200 and "scripted" in page.text
    finally:
        assert server.stop() == 0
