"""The `ponder` command driven as a subprocess against the scripted rig."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ponder.interfaces import cli
from ponder.interfaces.cli.output import default_path, slug
from ponder.testing import Rig, ScriptedBackend

SRC = Path(__file__).resolve().parents[2] / "src"
TOPIC = "How do tides work?"


def ponder(*args: str, cwd: Path, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ponder", *args],
        cwd=cwd,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# `python -m ponder` with the Ctrl-C handler a terminal's foreground process has. Started
# from a background job (`make test &`, nohup), a process inherits SIGINT ignored, and
# Python then installs no handler of its own: Ctrl-C cannot reach it, as the job meant.
AS_FROM_A_TERMINAL = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('ponder', run_name='__main__', alter_sys=True)"
)


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "100"}


def rig_flags(rig: Rig, corpus: Path, loops: int = 1) -> list[str]:
    return [
        *("--model", "scripted", "--ollama-url", rig.url),
        *("--search", "local", "--docs", str(corpus), "--mode", "loop", "--loops", str(loops)),
    ]


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_file())


# -- running -----------------------------------------------------------------------------


def test_question_writes_markdown_named_after_it_and_says_where(
    rig: Rig, corpus: Path, workdir: Path
) -> None:
    done = ponder(TOPIC, *rig_flags(rig, corpus), cwd=workdir)
    assert done.returncode == 0, done.stderr
    written = workdir / "how-do-tides-work.md"
    assert written.read_text(encoding="utf-8").startswith("# ")
    assert "## Sources" in written.read_text(encoding="utf-8")
    assert "Report saved to how-do-tides-work.md" in done.stderr
    assert "## Sources" in done.stdout  # not a terminal: the Markdown itself is printed
    assert "Traceback" not in done.stderr
    listed = ponder("runs", cwd=workdir)
    assert "done" in listed.stdout and TOPIC in listed.stdout


def test_json_output_parses_and_points_at_the_file(rig: Rig, corpus: Path, workdir: Path) -> None:
    done = ponder("research", TOPIC, *rig_flags(rig, corpus), "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert Path(result["path"]).read_text(encoding="utf-8") == result["markdown"]
    assert result["topic"] == TOPIC and result["thread_id"]
    assert result["sources"] and result["sources"][0]["passages"]
    assert result["stats"]["rounds"] == 1


def test_html_report_links_citations_to_the_passages_read(
    rig: Rig, corpus: Path, workdir: Path
) -> None:
    done = ponder(
        TOPIC, *rig_flags(rig, corpus), "--format", "html", "--out", "r.html", cwd=workdir
    )
    assert done.returncode == 0, done.stderr
    page = (workdir / "r.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="#source-(\d+)"', page))
    anchors = set(re.findall(r'id="source-(\d+)"', page))
    assert links and links <= anchors
    assert '<blockquote class="passage">' in page
    assert "<script" not in page.lower() and "http-equiv" in page


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([""], "empty"),
        (["   \t "], "empty"),
        (["x" * 2500], "limit"),
        ([TOPIC, "--docs", "/no/such/folder"], "--docs"),
        ([TOPIC, "--docs", "~nosuchuser/notes"], "no user 'nosuchuser'"),
        (["index", "~nosuchuser"], "no user 'nosuchuser'"),
        ([TOPIC, "--docs", "/tmp/" + "n" * 300], "longer than any path"),
        ([TOPIC, "--search", "bing"], "--search"),
        ([TOPIC, "--effort", "extreme"], "--effort"),
        ([TOPIC, "--format", "tex"], "--format"),
        ([TOPIC, "--mode", "fast"], "--mode"),
        ([TOPIC, "--loops", "many"], "--loops"),
        ([TOPIC, "--loops", "0"], "--loops"),
        ([TOPIC, "--search", "local"], "--docs"),
        ([TOPIC, "--out", "missing/dir/r.md"], "--out"),
        (["resume", "no-such-run"], "ponder runs"),
        ([], "question"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    args: list[str], says: str, workdir: Path
) -> None:
    done = ponder(*args, cwd=workdir)
    assert done.returncode == cli.EXIT_USAGE
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert says in lines[0]
    assert done.stdout == ""
    assert files_in(workdir) == []


def test_ctrl_c_keeps_the_checkpoint_and_resume_finishes(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, workdir: Path
) -> None:
    counter = itertools.count(1)
    interrupted = threading.Event()

    def reflect(_request: Any) -> dict[str, Any]:
        interrupted.wait(30)  # the run waits in its first round until Ctrl-C was pressed
        return {
            "is_sufficient": False,
            "knowledge_gap": "more",
            "follow_up_queries": [f"moon tide {next(counter)}"],
            "scope": "focused",
            "subtopics": [],
        }

    scripted.overrides["Reflection"] = reflect
    child = subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_TERMINAL, TOPIC, *rig_flags(rig, corpus, loops=3)],
        cwd=workdir,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: any(e.schema == "SummaryUpdate" for e in rig.chat_log()))
        ignored = _signals_ignored(child.pid)  # (a test runner may pass SIGINT ignored on)
        child.send_signal(signal.SIGINT)
        interrupted.set()
        _out, err = child.communicate(timeout=30)
    finally:
        interrupted.set()
        child.kill()
    assert child.returncode == cli.EXIT_INTERRUPTED, f"{err} (signals ignored: {ignored})"
    assert "Traceback" not in err
    match = re.search(r"ponder resume (\S+)", err)
    assert match, err
    assert files_in(workdir) == []
    scripted.delay = 0
    assert "interrupted" in ponder("runs", cwd=workdir).stdout
    resumed = ponder("resume", match.group(1), cwd=workdir)
    assert resumed.returncode == 0, resumed.stderr
    assert (workdir / "how-do-tides-work.md").exists()
    assert sum(1 for e in rig.chat_log() if e.schema == "QueryPlan") == 1


def test_clarifying_question_without_a_terminal_exits_10_then_resume_answers(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, workdir: Path
) -> None:
    asked = itertools.count()
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": next(asked) == 0,
        "question": "Which coast do you mean?",
        "verification": "",
    }
    flags = [*rig_flags(rig, corpus), "--mode", "deep"]  # the last --mode wins
    paused = ponder(TOPIC, *flags, cwd=workdir)
    assert paused.returncode == 10, paused.stderr
    assert "Which coast do you mean?" in paused.stderr
    match = re.search(r"ponder resume (\S+) --answer", paused.stderr)
    assert match, paused.stderr
    done = ponder("resume", match.group(1), "--answer", "the Atlantic coast", cwd=workdir)
    assert done.returncode == 0, done.stderr
    prompts = [str(e.messages) for e in rig.chat_log() if e.schema == "ResearchBrief"]
    assert prompts and "the Atlantic coast" in prompts[-1]


# -- doctor ------------------------------------------------------------------------------


def test_doctor_with_ollama_down_says_how_to_start_it(corpus: Path, workdir: Path) -> None:
    done = ponder(
        "doctor", "--ollama-url", "http://127.0.0.1:9", "--search", "local", "--docs", str(corpus),
        cwd=workdir,
    )  # fmt: skip
    assert done.returncode == 3
    assert "✗ Ollama is not running at http://127.0.0.1:9" in done.stdout
    assert "ollama serve" in done.stdout


def test_doctor_with_the_model_missing_says_which_pull(
    rig: Rig, corpus: Path, workdir: Path
) -> None:
    done = ponder(
        "doctor", "--ollama-url", rig.url, "--model", "qwen3:8b",
        "--search", "local", "--docs", str(corpus), cwd=workdir,
    )  # fmt: skip
    assert done.returncode == 4
    assert "Models pulled: scripted" in done.stdout
    assert "ollama pull qwen3:8b" in done.stdout
    assert "ponder index" in done.stdout  # the corpus was never indexed


def test_index_then_doctor_is_all_set(rig: Rig, corpus: Path, workdir: Path) -> None:
    indexed = ponder("index", str(corpus), cwd=workdir)
    assert indexed.returncode == 0, indexed.stderr
    assert "Indexed 3 file(s)" in indexed.stdout
    done = ponder(
        "doctor", "--ollama-url", rig.url, "--model", "scripted",
        "--search", "local", "--docs", str(corpus), cwd=workdir,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout
    assert "Index up to date: 3 file(s)" in done.stdout


# -- pieces, in process ------------------------------------------------------------------


def test_help_imports_nothing_heavy(workdir: Path) -> None:
    """What keeps `ponder --help` fast; its time is measured in `make bench`, not here."""
    probe = (
        "import sys; from ponder.interfaces.cli import main\n"
        "try: main(['--help'])\nexcept SystemExit: pass\n"
        "heavy = [m for m in ('pydantic', 'langgraph', 'rich', 'httpx') if m in sys.modules]\n"
        "print(heavy, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=child_env(), capture_output=True, text=True, check=True
    )
    assert done.stderr.strip() == "[]", done.stderr  # nothing heavy was imported
    assert 'ponder "question"' in done.stdout and "exit codes" in done.stdout


def test_slug_and_default_name_never_overwrite(workdir: Path) -> None:
    assert slug("How do tides work?") == "how-do-tides-work"
    assert slug("Ünïcödé — çà va?") == "unicode-ca-va"
    assert slug("???") == "report"
    (workdir / "how-do-tides-work.md").write_text("old")
    assert default_path(TOPIC, "md", workdir).name == "how-do-tides-work-2.md"


def _signals_ignored(pid: int) -> str:
    """The process's mask of ignored signals (Linux), for a failure's message."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "?"
    return next((line.split()[1] for line in status.splitlines() if line.startswith("SigIgn")), "?")


def wait_for(condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def run_in_terminal(args: list[str], cwd: Path, timeout: float = 90) -> str:
    """Run ``ponder`` with a pseudo-terminal as stdin, stdout and stderr; return its screen."""
    import pty
    import select

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "ponder", *args],
        cwd=cwd,
        env={**child_env(), "TERM": "xterm"},
        stdin=follower,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    captured = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command is done
                break
            if not chunk:
                break
            captured.extend(chunk)
        elif process.poll() is not None:
            break
    process.wait(timeout=10)
    os.close(leader)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", captured.decode(errors="replace"))


def test_the_report_is_shown_as_it_is_written_under_the_progress_line(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, workdir: Path
) -> None:
    from ponder.testing import Reply

    loop = itertools.cycle(["Round ", "and ", "round ", "we ", "go ", "[1].", "\n"])
    drafts = iter([Reply(pieces=loop, piece_delay=0.05)])
    final = "# Tides\n\nThe Moon raises the tides [1].\n"
    slow_final = Reply(pieces=[final[i : i + 4] for i in range(0, len(final), 4)], piece_delay=0.05)
    scripted.overrides["text"] = lambda _request: next(drafts, slow_final)
    screen = run_in_terminal([TOPIC, *rig_flags(rig, corpus)], cwd=workdir)
    assert "Round and round we go" in screen  # the draft, live under the progress line
    assert "draft discarded" in screen
    saved = (workdir / "how-do-tides-work.md").read_text(encoding="utf-8")
    assert "Round and round" not in saved and "The Moon raises the tides [1]." in saved
