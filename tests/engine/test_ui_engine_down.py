"""`ponder ui` as an engine's client (``PONDER_SERVER``), where no engine answers or a user
has no token for it: every page says what is wrong and what to do, and nothing is kept
here. (With a real engine, two Aegra replicas: ``test_doors_on_aegra.py``.)"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from starlette.testclient import TestClient
from support import closed_address, serve_mcp_http

from ponder.interfaces.ui.app import create_app

BASE = "http://127.0.0.1:8765"


@pytest.fixture
def engine_down(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with closed_address() as nowhere:
        monkeypatch.setenv("PONDER_SERVER", nowhere)
        monkeypatch.setenv("PONDER_SERVER_TOKEN", "op-engine-token")
        monkeypatch.setenv("PONDER_SERVER_TOKENS", "alice=alice-engine-token")
        monkeypatch.setenv("PONDER_UI_TOKENS", "alice=alice-ui,carol=carol-ui")
        yield nowhere


def page(path: str, token: str, method: str = "GET", **form: str) -> tuple[int, str]:
    with TestClient(create_app("127.0.0.1", 8765), base_url=BASE) as client:
        headers = {"authorization": f"Bearer {token}"}
        answer = client.request(method, path, headers=headers, data=form or None)
    return answer.status_code, answer.text


# Each takes the SDK's retries (about 7 s): a replica restarting behind the address is waited for.
@pytest.mark.parametrize("path", ["/", "/runs/0b7d4c3e-1111-4c2e-9f00-000000000000"])
def test_an_engine_that_does_not_answer_is_said_on_every_page(engine_down: str, path: str) -> None:
    status, text = page(path, "alice-ui")
    assert status == 502
    assert "Cannot reach" in text and "PONDER_SERVER" in text
    assert "Traceback" not in text


def test_a_question_asked_while_the_engine_is_down_is_kept_on_the_form(engine_down: str) -> None:
    status, text = page("/runs", "alice-ui", "POST", topic="How do tides work?", mode="loop")
    assert status == 502 and "Cannot reach" in text
    assert ">How do tides work?</textarea>" in text, "what was typed is still there"


def test_a_user_without_an_engine_token_is_told_who_sets_it(engine_down: str) -> None:
    status, text = page("/runs", "carol-ui")
    assert status == 503
    assert "carol=TOKEN in PONDER_SERVER_TOKENS" in text


def test_documents_are_where_the_engine_runs(engine_down: str) -> None:
    for method in ("GET", "POST"):
        status, text = page("/documents", "alice-ui", method)
        assert status == 404 and "indexed where the engine runs" in text


def test_the_ui_says_whether_one_process_holds_its_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ponder.interfaces import ui
    from ponder.settings.environment import read_environment

    monkeypatch.delenv("PONDER_SERVER", raising=False)
    assert "one process holds its runs" in ui._who_holds_runs(read_environment())
    monkeypatch.setenv("PONDER_SERVER", "http://engine.example:8000")
    said = ui._who_holds_runs(read_environment())
    assert "held by the engine at http://engine.example:8000" in said


async def test_an_mcp_client_without_an_engine_token_is_told_who_sets_it(
    engine_down: str, tmp_path: Path
) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PONDER_", "OLLAMA_"))},
        "PONDER_SERVER": engine_down,
        "PONDER_SERVER_TOKENS": "alice=alice-engine-token",
        "PONDER_MCP_TOKENS": "alice=alice-mcp,carol=carol-mcp",
        "PONDER_DATA_DIR": str(tmp_path / "data"),
        "PONDER_CACHE_DIR": str(tmp_path / "cache"),
    }
    process, port = serve_mcp_http(env, "127.0.0.1")
    try:
        http = create_mcp_http_client(headers={"Authorization": "Bearer carol-mcp"})
        address = f"http://127.0.0.1:{port}/mcp"
        async with http, Client(streamable_http_client(address, http_client=http)) as client:
            said = await client.call_tool("research", {"question": "How do tides work?"})
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    assert said.is_error and "carol=TOKEN in PONDER_SERVER_TOKENS" in said.content[0].text
