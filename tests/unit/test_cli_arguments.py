"""The command line without running it: its options (one list of names with the MCP
tool), its exit codes (one table with the help and the docs), effort presets, the HTML
report's escaping and the live progress view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ponder.core.result import Report, RunStats, SourceRef
from ponder.interfaces import cli
from ponder.interfaces.cli import arguments
from ponder.interfaces.cli.progress import ProgressView
from ponder.interfaces.html import render_html

SRC = Path(__file__).resolve().parents[2] / "src"
TOPIC = "How do tides work?"


async def test_every_search_backend_and_mode_is_offered_by_each_way_in() -> None:
    """One list of names (the modes in ponder.settings.choices, the search backends as they
    registered): the CLI accepts each, Configuration takes it, the MCP tool offers exactly
    them; an unknown name is a usage error."""
    from ponder.interfaces.mcp.server import build_server
    from ponder.settings.choices import MODES
    from ponder.settings.configuration import Configuration
    from ponder.settings.search_backends import names

    parser = cli.build_parser()
    tools = {tool.name: tool for tool in await build_server().list_tools()}
    offered = tools["research"].input_schema["properties"]
    for name in names():
        args = parser.parse_args(cli.with_default_command(["q", "--search", name]))
        assert args.search == name
        assert Configuration.create(search=name).search == name
    for mode in MODES:
        assert parser.parse_args(cli.with_default_command(["q", "--mode", mode])).mode == mode
    assert offered["search"]["anyOf"][0]["enum"] == list(names())
    assert offered["mode"]["anyOf"][0]["enum"] == list(MODES)
    with pytest.raises(SystemExit):
        parser.parse_args(cli.with_default_command(["q", "--search", "altavista"]))


def test_exit_codes_are_one_table_that_the_help_and_the_docs_follow() -> None:
    """Each error's code is in ExitCode; --help lists every code; docs/interfaces.md's
    table has exactly those codes."""
    from ponder.core import errors
    from ponder.core.errors import ExitCode

    classes = [
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.PonderError)
    ]
    assert all(ExitCode(c.exit_code) for c in classes)
    assert set(errors.EXIT_CODES) == set(ExitCode)
    assert all(
        f"{int(code)} {what}" in arguments.EXAMPLES for code, what in errors.EXIT_CODES.items()
    )
    docs = (Path(__file__).resolve().parents[2] / "docs" / "interfaces.md").read_text()
    table = docs[docs.index("### Exit codes") :].split("\n\n", 3)[2]
    documented = {
        int(line.split("|")[1]) for line in table.splitlines()[2:] if line.startswith("|")
    }
    assert documented == {int(code) for code in ExitCode}


def test_several_backends_are_one_comma_separated_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["research", "q", "--search", "Wikipedia, arxiv,wikipedia"])
    options = cli.run_options(args)
    assert options["search"] == "wikipedia,arxiv"
    assert (
        cli.run_options(parser.parse_args(["research", "q", "--wikipedia-lang", "de"]))[
            "wikipedia_lang"
        ]
        == "de"
    )
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["research", "q", "--search", "wikipedia,encyclopaedia"])
    assert stopped.value.code == 2
    assert "unknown backend encyclopaedia" in capsys.readouterr().err


def test_effort_presets_yield_to_explicit_flags() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(cli.with_default_command(["q", "--effort", "deep", "--loops", "2"]))
    options = cli.run_options(args)
    assert options["max_loops"] == 2
    assert options["queries_per_round"] == arguments.EFFORT_PRESETS["deep"]["queries_per_round"]
    quick = cli.run_options(parser.parse_args(["research", "q", "--effort", "quick"]))
    assert quick["max_loops"] == 1


def test_html_escapes_everything_from_the_model_and_the_web() -> None:
    evil = "<script>alert(1)</script>"
    report = Report(
        topic=f"Tides {evil}",
        markdown=f"# Tides\n\nThe Moon pulls {evil} the sea [1]. Unknown [7].\n\n"
        f"## Sources\n\n1. Evil {evil} — javascript:alert(1)\n",
        summary="",
        sources=[
            SourceRef(
                number=1,
                cited=True,
                url="javascript:alert(1)",
                title=f"Evil {evil}",
                passages=[f"read this {evil} & that"],
            )
        ],
        stats=RunStats(),
        thread_id="t1",
    )
    page = render_html(report)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="#source-1"' in page and 'id="source-1"' in page
    assert 'href="javascript' not in page
    assert "[7]" in page and "#source-7" not in page  # not a listed source: left as text
    assert "read this &lt;script&gt;" in page


def test_progress_view_shows_round_sources_tokens_and_queries() -> None:
    from io import StringIO

    from rich.console import Console

    from ponder.core.events import ProgressEvent

    out = StringIO()
    view = ProgressView(Console(file=out, width=100, force_terminal=True), enabled=True)
    events: list[dict[str, Any]] = [
        {"kind": "node_start", "node": "web_research"},
        {"kind": "round_start", "data": {"round": 2, "max_rounds": 3, "queries": ["moon pull"]}},
        {"kind": "sources", "data": {"new": 2, "total": 7}},
        {"kind": "node_end", "node": "web_research", "data": {"tokens": 1234}},
        {"kind": "warning", "data": {"message": "search slow"}},
    ]
    for event in events:
        view.update(ProgressEvent(**event))
    console = Console(file=StringIO(), width=100, record=True)
    console.print(view.render())
    text = console.export_text()
    assert "searching · round 2 of 3 · 7 sources · 1,234 tokens" in text
    assert "› moon pull" in text
    assert "warning: search slow" in out.getvalue()
    quiet = StringIO()
    silent = ProgressView(Console(file=quiet), enabled=False)
    with silent:
        silent.update(ProgressEvent(kind="warning", data={"message": "x"}))
    assert quiet.getvalue() == ""


def test_progress_view_follows_the_deep_pipeline() -> None:
    from ponder.core.events import ProgressEvent
    from ponder.interfaces.cli.progress import ProgressState

    state = ProgressState()
    for kind, data in [
        ("supervisor", {"round": 1, "subtopics": ["moon", "sun"], "waiting": []}),
        ("researcher", {"topic": "moon", "status": "started"}),
        ("researcher", {"topic": "sun", "status": "started"}),
        ("researcher", {"topic": "moon", "status": "done"}),
    ]:
        state.apply(ProgressEvent(kind=kind, data=data))
    headline = state.headline(65)
    assert "supervisor round 1 · researchers: 1 running, 1 done" in headline
    assert headline.endswith("1:05") and state.queries == ["moon", "sun"]
