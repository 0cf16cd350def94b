"""search=tavily through Tavily's own client (tavily-python), pointed at a local server that
speaks Tavily's search API: a run cites what it found; a missing or rejected key stops
the run with the search exit code and a message that says what to do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support import TAVILY_KEY as KEY
from support import TavilyServer

from ponder import research
from ponder.core.errors import SearchError
from ponder.interfaces.cli import main
from ponder.testing import Rig


@pytest.fixture
def tavily() -> Iterator[TavilyServer]:
    server = TavilyServer()
    yield server
    server.close()


def test_a_run_searches_tavily_and_cites_it(
    tavily: TavilyServer, rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    report = research(
        "How do tides work?", model="scripted", ollama_base_url=rig.url, search="tavily",
        tavily_url=tavily.url, mode="loop", max_loops=1, cache=False,
    )  # fmt: skip
    assert tavily.requests and all(r["path"] == "/search" for r in tavily.requests)
    assert all(r["auth"] == f"Bearer {KEY}" for r in tavily.requests)
    assert "How do tides work?" in [r["query"] for r in tavily.requests]
    assert report.cited_sources() and all(
        s.url.startswith("https://tides.example/") for s in report.sources
    )
    assert "Moon's gravity" in report.sources[0].passages[0]


def test_a_rejected_key_stops_the_run_with_the_search_exit_code(
    tavily: TavilyServer,
    rig: Rig,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-wrong")
    monkeypatch.setenv("PONDER_TAVILY_URL", tavily.url)
    monkeypatch.chdir(tmp_path)
    flags = ["--model", "scripted", "--ollama-url", rig.url, "--search", "tavily", "--no-cache"]
    code = main(["How do tides work?", *flags, "--loops", "1", "--mode", "loop"])
    err = capsys.readouterr().err
    assert code == SearchError.exit_code
    assert "Tavily rejected the API key in TAVILY_API_KEY" in err and "Traceback" not in err
    assert tavily.requests  # it was asked, and said no
    assert not list(tmp_path.glob("*.md"))


def test_a_missing_key_is_named_before_anything_is_sent(
    tavily: TavilyServer, rig: Rig, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    flags = ["--model", "scripted", "--ollama-url", rig.url, "--search", "tavily"]
    assert main(["How do tides work?", *flags, "--mode", "loop"]) == SearchError.exit_code
    assert "set TAVILY_API_KEY" in capsys.readouterr().err
    assert not tavily.requests
