"""`ponder --server`: research on a LangGraph Server (`langgraph dev`, started here) through
langgraph-sdk — progress, a clarifying question, resume, `ponder runs`, the report saved
locally; the server's environment supplies the settings the caller leaves out, and what only
its operator sets is refused before the server is asked. The server is the session's team
server (conftest `team`: authentication on, the caller is alice)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import ask_once
from support.edges import here
from support.langgraph_dev import TOKENS, Team

from ponder import aresearch
from ponder.api import ClarificationNeeded
from ponder.api.remote import RemoteServerError
from ponder.interfaces.cli import main
from ponder.testing import Rig, ScriptedBackend


@pytest.fixture
def server(team: Team, monkeypatch: pytest.MonkeyPatch) -> str:
    """The team's server (authentication on; the caller is alice); its own environment points
    at its Ollama and documents, so the caller does not say."""
    monkeypatch.setenv("PONDER_SERVER_TOKEN", TOKENS["alice"])
    return team.url


@pytest.fixture
def rig(team: Team, team_scripted: ScriptedBackend) -> Rig:
    return team.rig


@pytest.fixture
def scripted(team_scripted: ScriptedBackend) -> ScriptedBackend:
    return team_scripted


@pytest.fixture
def corpus(team: Team) -> Path:
    return team.docs  # the server's documents


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
    server: str, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = corpus / "no-such-notes"  # inside the server's folders, but not there
    code = main(["How do tides work?", "--server", server, "--search", "local", "--mode",
                 "loop", "--docs", str(missing)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == RemoteServerError.exit_code
    assert "None of the document paths exist" in err and "Traceback" not in err


def test_what_only_the_operator_sets_is_refused_before_the_server_is_asked(
    server: str, team: Team, capsys: pytest.CaptureFixture[str]
) -> None:
    threads = len(team_threads(team))
    code = main(["How do tides work?", "--server", server, "--ollama-url", "http://evil:11434"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--ollama-url (ollama_base_url) is set by the server's operator" in err
    code = main(["resume", "some-run", "--server", server, "--ollama-url", "http://evil:1"])
    assert code == 2 and "--ollama-url (ollama_base_url)" in capsys.readouterr().err
    assert len(team_threads(team)) == threads  # nothing reached the server


def test_a_caller_without_a_token_is_told_what_to_set(
    server: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PONDER_SERVER_TOKEN")
    code = main(["How do tides work?", "--server", server, "--search", "local"])
    err = capsys.readouterr().err
    assert code == RemoteServerError.exit_code
    assert "wants a token" in err and "PONDER_SERVER_TOKEN" in err and "Traceback" not in err


def team_threads(team: Team) -> list[object]:
    import asyncio

    return asyncio.run(team.client("alice").threads.search(limit=1000))


async def test_a_thread_left_without_a_run_is_started_by_resume(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C between creating the thread and starting its run: resume starts it."""
    client = team_client(server)
    thread = await client.threads.create(
        metadata={"ponder_topic": "How do tides work?",
                  "ponder_options": {"search": "local", "mode": "loop", "max_loops": 1}},
    )  # fmt: skip
    run_id = str(thread["thread_id"])
    from ponder.api.engine import remote_runs

    token = here().secret("PONDER_SERVER_TOKEN")  # the test is the edge that reads it
    [listed] = [r for r in await remote_runs(server, token) if r.thread_id == run_id]
    assert listed.status == "interrupted"
    from ponder import aresume

    report = await aresume(run_id, server=server, max_loops=2)
    assert report.markdown.startswith("# ") and report.sources
    assert report.stats.rounds == 2  # the override applied …
    kept = await client.threads.get(run_id)
    assert kept["metadata"]["ponder_options"]["max_loops"] == 2  # … and holds from here on


async def test_a_chat_client_sends_messages_and_follows_up_on_the_thread(
    server: str, rig: Rig, corpus: Path
) -> None:
    """What Agent Chat UI does: messages in, the report back as an AI message; a follow-up
    on the same thread keeps what was found and does not search it again."""
    client = team_client(server)
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


async def test_a_second_topic_on_a_thread_is_researched_as_a_question_of_its_own(
    server: str,
) -> None:
    """What Studio's input form sends on a thread it already used: a new ``topic``. It gets
    its own rounds (it had only what the first question left of max_loops)."""
    client = team_client(server)
    thread = (await client.threads.create())["thread_id"]
    settings = {"configurable": {"search": "local", "mode": "loop", "max_loops": 1}}
    for topic, title in (
        ("How do tides work?", "tides work"),
        ("Who reads tide tables?", "tide tables"),
    ):
        done = await client.runs.wait(thread, "ponder", config=settings, input={"topic": topic})
        assert title in done["report"].splitlines()[0]
        state = await client.threads.get_state(thread)
        assert state["values"]["research_loop_count"] == 1
        assert topic in state["values"]["queries_run"]


def team_client(server: str) -> Any:
    from langgraph_sdk import get_client

    return get_client(url=server, headers={"Authorization": f"Bearer {TOKENS['alice']}"})
