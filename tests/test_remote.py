"""`ponder --server`: research on a LangGraph Server (`langgraph dev`, started here) through
langgraph-sdk — progress, a clarifying question, resume, `ponder runs`, the report saved
locally; the server's environment supplies the settings the caller leaves out."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ask_once
from test_studio import ROOT, free_port, langgraph_cli, scratch_config, stop, wait_for_url

from ponder import aresearch
from ponder.api import ClarificationNeeded
from ponder.interfaces.cli import main
from ponder.remote import RemoteServerError
from ponder.testing import Rig, ScriptedBackend


@pytest.fixture
def server(tmp_path: Path, rig: Rig, corpus: Path) -> Iterator[str]:
    """`langgraph dev` whose own environment points at the rig and names the model."""
    cli = langgraph_cli()
    assert cli is not None, "langgraph-cli is part of the dev extra"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "NO_COLOR": "1",
        "OLLAMA_HOST": rig.url,  # the server's Ollama: the caller does not say
        "PONDER_MODEL": "scripted",
        "PONDER_DOCS": str(corpus),  # the server's documents
        "PONDER_DATA_DIR": str(tmp_path / "server-data"),
        "PONDER_CACHE_DIR": str(tmp_path / "server-cache"),
    }
    folder = tmp_path / "server"
    folder.mkdir()
    command = [cli, "dev", "--no-browser", "--no-reload", "--port", str(free_port())]
    command += ["--config", str(scratch_config(folder))]
    process = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        yield wait_for_url(process, [])
    finally:
        stop(process)


def test_a_server_run_asks_pauses_and_resumes_from_the_terminal(
    server: str,
    rig: Rig,
    scripted: ScriptedBackend,
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ask_once(scripted)
    monkeypatch.chdir(tmp_path)
    flags = ["--server", server, "--search", "local", "--docs", str(corpus), "--mode", "deep"]
    code = main(["How do tides shape harbours?", *flags, "--loops", "1"])
    err = capsys.readouterr().err
    assert code == ClarificationNeeded.exit_code, err
    assert "Which coast do you mean?" in err and f"--server {server}" in err
    run_id = err.split("ponder resume ")[1].split()[0]

    assert main(["runs", "--server", server]) == 0
    listed = capsys.readouterr().out
    assert run_id in listed and "waiting" in listed and "How do tides shape harbours?" in listed

    code = main(["resume", run_id, "--server", server, "--answer", "The Atlantic coast"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("# ") and "## Sources" in out and "[1]" in out
    saved = [p for p in tmp_path.glob("*.md")]
    assert len(saved) == 1 and saved[0].read_text(encoding="utf-8").startswith("# ")
    assert f"run {run_id}" in err
    # The answer reached the server's run; every model call went to the server's Ollama.
    [brief] = [e for e in rig.chat_log() if e.schema == "ResearchBrief"]
    assert "The Atlantic coast" in brief.messages[-1]["content"]
    assert {e.model for e in rig.chat_log()} == {"scripted"}
    assert main(["runs", "--server", server]) == 0
    assert "done" in capsys.readouterr().out


async def test_the_python_api_runs_on_a_server_with_live_progress(
    server: str, rig: Rig, corpus: Path
) -> None:
    from ponder import stream

    kinds = []
    report = None
    async for item in stream(
        "How do tides work?", server=server, search="local", docs=[str(corpus)],
        mode="loop", max_loops=2,
    ):  # fmt: skip
        if hasattr(item, "markdown"):
            report = item
        else:
            kinds.append(item.kind)
    assert report is not None and report.markdown.startswith("# ") and report.sources
    assert report.stats.rounds == 2 and report.stats.llm_calls > 0
    assert {"node_start", "node_end", "round_start", "queries", "sources", "report"} <= set(kinds)


async def test_an_unreachable_server_says_what_to_do(corpus: Path) -> None:
    with pytest.raises(RemoteServerError, match="Cannot reach the LangGraph server"):
        await aresearch(
            "How do tides work?", server="http://127.0.0.1:9", search="local", docs=[str(corpus)]
        )


def test_what_only_the_server_can_check_is_left_to_it(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """--search local with no --docs here: the server has its own (PONDER_DOCS)."""
    monkeypatch.chdir(tmp_path)
    code = main(["How do tides work?", "--server", server, "--search", "local", "--mode",
                 "loop", "--loops", "1"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "tides.md" in out or "moon.txt" in out  # cites the server's documents


def test_a_failure_on_the_server_is_shown_in_ponders_words(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["How do tides work?", "--server", server, "--search", "local", "--mode",
                 "loop", "--ollama-url", "http://127.0.0.1:9"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == RemoteServerError.exit_code
    assert "Ollama is not running at http://127.0.0.1:9" in err and "Traceback" not in err


async def test_a_thread_left_without_a_run_is_started_by_resume(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C between creating the thread and starting its run: resume starts it."""
    from langgraph_sdk import get_client

    thread = await get_client(url=server).threads.create(
        metadata={"ponder_topic": "How do tides work?",
                  "ponder_options": {"search": "local", "mode": "loop", "max_loops": 1}},
    )  # fmt: skip
    run_id = str(thread["thread_id"])
    from ponder.remote import remote_runs

    [listed] = [r for r in await remote_runs(server) if r.thread_id == run_id]
    assert listed.status == "interrupted"
    from ponder import aresume

    report = await aresume(run_id, server=server, max_loops=2)
    assert report.markdown.startswith("# ") and report.sources
    assert report.stats.rounds == 2  # the override applied …
    kept = await get_client(url=server).threads.get(run_id)
    assert kept["metadata"]["ponder_options"]["max_loops"] == 2  # … and holds from here on


async def test_a_chat_client_sends_messages_and_follows_up_on_the_thread(
    server: str, rig: Rig, corpus: Path
) -> None:
    """What Agent Chat UI does: messages in, the report back as an AI message; a follow-up
    on the same thread keeps what was found and does not search it again."""
    from langgraph_sdk import get_client

    client = get_client(url=server)
    thread = (await client.threads.create())["thread_id"]
    settings = {"configurable": {"search": "local", "mode": "loop", "max_loops": 1}}
    first = await client.runs.wait(
        thread, "ponder", config=settings,
        input={"messages": [{"role": "user", "content": "How do tides work?"}]},
    )  # fmt: skip
    messages = first["messages"]
    assert [m["type"] for m in messages] == ["human", "ai"]
    assert messages[-1]["content"] == first["report"] and "[1]" in first["report"]
    known = {s["url"] for s in first["sources"]}
    calls_before = len(rig.chat_log())

    second = await client.runs.wait(
        thread, "ponder", config=settings,
        input={"messages": [{"role": "user", "content": "Who reads tide tables?"}]},
    )  # fmt: skip
    messages = second["messages"]
    assert [m["type"] for m in messages] == ["human", "ai", "human", "ai"]
    assert messages[-1]["content"] == second["report"]
    assert "Who reads tide tables" in second["report"].splitlines()[0]
    assert known <= {s["url"] for s in second["sources"]}  # earlier sources kept in view
    # New evidence for the new question: its passages were shown to the model again.
    assert "SummaryUpdate" in [e.schema for e in rig.chat_log()[calls_before:]]
    state = await client.threads.get_state(thread)
    run = state["values"]["queries_run"]
    assert len(run) == len({q.lower() for q in run})  # nothing searched twice
    assert "How do tides work?" in run and "Who reads tide tables?" in run
