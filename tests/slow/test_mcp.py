"""`ponder mcp` through the official MCP client (the `mcp` SDK): over stdio and streamable
HTTP, tools listed, a cited report with progress per round, documents searched, and a
clarifying question by elicitation or through `resume`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from support import ask_once

from ponder.testing import Rig, ScriptedBackend

SRC = Path(__file__).resolve().parents[2] / "src"


def server_env(rig: Rig, corpus: Path, tmp_path: Path) -> dict[str, str]:
    """Settings come from the environment, as for the CLI."""
    return {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "OLLAMA_HOST": rig.url,
        "PONDER_MODEL": "scripted",
        "PONDER_SEARCH": "local",
        "PONDER_DOCS": str(corpus),
        "PONDER_DATA_DIR": str(tmp_path / "mcp-data"),
        "PONDER_CACHE_DIR": str(tmp_path / "mcp-cache"),
    }


def stdio(rig: Rig, corpus: Path, tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "ponder", "mcp"], env=server_env(rig, corpus, tmp_path)
    )


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def test_stdio_lists_the_tools_and_research_returns_a_cited_report(
    rig: Rig, corpus: Path, tmp_path: Path
) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with Client(stdio(rig, corpus, tmp_path)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"research", "resume", "search_documents"}
        assert "question" in tools["research"].input_schema["required"]
        result = await client.call_tool(
            "research",
            {"question": "How do tides work?", "mode": "loop", "max_loops": 2},
            progress_callback=on_progress,
        )
    assert not result.is_error, text_of(result)
    report = text_of(result)
    assert report.startswith("# ") and "[1]" in report and "## Sources" in report
    structured = result.structured_content or {}
    cited = [s for s in structured["sources"] if s["cited"]]
    assert cited and all(Path(s["url"]).parent == corpus for s in cited)
    rounds = [m for _, _, m in progress if m and m.startswith("round ")]
    assert [m.split(":")[0] for m in rounds] == ["round 1", "round 2"]
    steps = [done for done, _, _ in progress]
    assert steps == sorted(set(steps))  # MCP progress only increases
    assert rig.chat_log()  # the research ran on the rig named by OLLAMA_HOST


@pytest.fixture
def http_server(rig: Rig, corpus: Path, tmp_path: Path) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "ponder", "mcp", "--http", str(port)],
        env=server_env(rig, corpus, tmp_path), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None and time.monotonic() < deadline, "no HTTP server"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_streamable_http_serves_research_and_document_search(http_server: str) -> None:
    async with Client(http_server) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"research", "resume", "search_documents"}
        found = await client.call_tool("search_documents", {"query": "pilots tide tables"})
        research = await client.call_tool(
            "research", {"question": "How do tides work?", "mode": "loop", "max_loops": 1}
        )
    passages = (found.structured_content or {})["passages"]
    assert passages[0]["file"].endswith("harbours.rst")
    assert passages[0]["location"].startswith("chars ") and "pilots" in passages[0]["text"]
    assert text_of(research).startswith("# ") and "[1]" in text_of(research)


async def test_a_clarifying_question_is_elicited_from_the_client(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, tmp_path: Path
) -> None:
    ask_once(scripted)
    questions: list[str] = []

    async def answer(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        questions.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": "The Atlantic coast"})

    async with Client(stdio(rig, corpus, tmp_path), elicitation_callback=answer) as client:
        result = await client.call_tool(
            "research", {"question": "Tides and harbours", "mode": "deep", "max_loops": 1}
        )
    assert questions == ["Which coast do you mean?"]
    assert text_of(result).startswith("# ")
    [brief] = [e for e in rig.chat_log() if e.schema == "ResearchBrief"]
    assert "The Atlantic coast" in brief.messages[-1]["content"]


async def test_without_elicitation_the_question_comes_back_and_resume_answers_it(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, tmp_path: Path
) -> None:
    ask_once(scripted)
    async with Client(stdio(rig, corpus, tmp_path)) as client:
        paused = await client.call_tool(
            "research", {"question": "Tides and harbours", "mode": "deep", "max_loops": 1}
        )
        state = paused.structured_content or {}
        assert state["status"] == "needs_answer" and state["question"] == "Which coast do you mean?"
        assert "resume" in text_of(paused)
        done = await client.call_tool(
            "resume", {"run_id": state["run_id"], "answer": "The Atlantic coast"}
        )
    assert text_of(done).startswith("# ") and (done.structured_content or {})["status"] == "done"
