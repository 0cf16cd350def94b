"""The UI's streamed draft: what the log says the model wrote so far, rendered as the report."""

from __future__ import annotations

from typing import Any

from ponder.interfaces.ui.draft import draft_html, draft_text


def log(*events: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return list(enumerate(events, start=1))


def token(text: str) -> dict[str, Any]:
    return {"kind": "token", "data": {"text": text}}


def test_a_discarded_or_cut_part_leaves_the_parts_before_it_whole() -> None:
    events = log(
        {"kind": "status", "status": "running"},
        {"kind": "drafting"},
        token("# Tides\n\nThe Moon pulls [2]."),
        {"kind": "drafting"},
        token("## Harbours\n\nbroken broken"),
        {"kind": "discarded", "data": {"reason": "it repeated itself"}},
        {"kind": "drafting"},
        token("## Harbours\n\nPilots wait. and then garbage"),
        {"kind": "cut", "data": {"keep": len("## Harbours\n\nPilots wait.")}},
        {"kind": "report", "data": {"cited": 1}},
    )
    text, seq = draft_text(events)
    assert text == "# Tides\n\nThe Moon pulls [2].\n\n## Harbours\n\nPilots wait."
    assert seq == 9  # the report event is no part of the draft


def test_a_resumed_run_writes_a_draft_of_its_own() -> None:
    events = log(token("old text"), {"kind": "status", "status": "running"}, token("new"))
    assert draft_text(events) == ("new", 3)


def test_the_draft_renders_tables_and_escapes_html() -> None:
    markdown = (
        "## Compared\n\n| tide | height |\n|---|---|\n| spring | high [1] |\n\n<script>x</script>"
    )
    html = draft_html(markdown)
    assert "<table" in html and "<td>spring</td>" in html
    assert "<td>high [1]</td>" in html, "no citation is a link before the report"
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "##" not in html
