"""The UI's streamed draft: what the log says the model wrote so far, rendered as the report."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from typing import Any
from unittest.mock import ANY

from support import python_docs

from ponder.interfaces.ui.draft import DraftRenderer, draft_html, draft_text, with_drafts


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


async def test_a_tab_gets_the_draft_once_its_stream_has_caught_up() -> None:
    """A burst (a reload's replay) is followed by one rendering of the draft, not one per
    token; events that leave the draft as it is bring none."""
    events = log(
        {"kind": "status", "status": "running"},
        {"kind": "drafting"},
        *(token(piece) for piece in ("# Tides\n\n", "The Moon ", "pulls the sea [1].")),
        {"kind": "report", "data": {"cited": 1}},
    )

    async def follow() -> AsyncIterator[tuple[int, dict[str, Any]]]:
        for entry in events:
            yield entry
        await asyncio.sleep(0.05)  # the run goes on; nothing new for a while
        yield 99, {"kind": "node_start", "node": "reflect"}

    got = [item async for item in with_drafts(follow(), lambda: events)]
    drafts = [item for item in got if isinstance(item, dict)]
    assert [item for item in got if not isinstance(item, dict)] == [*events, (99, ANY)]
    assert len(drafts) == 1 and got.index(drafts[0]) == len(events), "after the burst"
    text, seq = draft_text(events)
    assert drafts[0] == {
        "reset": True,  # a stream's first: what a reconnecting tab held is replaced
        "settled": draft_html("# Tides\n\n"),
        "writing": draft_html("The Moon pulls the sea [1]."),
        "chars": len(text),
        "seq": seq,
    }
    assert "<h1>Tides</h1>" in drafts[0]["settled"]


def _text(html_text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", html_text)).split())


def test_a_streamed_page_of_the_docs_reads_as_the_whole_once_its_blocks_are_sent_once() -> None:
    """A Python docs page as a model writes Markdown (pandoc's GFM of it: headings, lists,
    tables, code), streamed in small pieces: each finished block is sent once, and what the
    tab holds reads as the whole draft rendered at once."""
    import pypandoc

    page = (python_docs() / "library/bisect.html").read_text(encoding="utf-8")
    body = re.search(r'<div class="body" role="main">(.*?)<div class="sphinxsidebar"', page, re.S)
    assert body is not None
    markdown = pypandoc.convert_text(body.group(1), "gfm-raw_html", format="html")
    renderer, held, writing, sent, whole = DraftRenderer(), "", "", 0, 0
    for end in range(23, len(markdown) + 23, 23):
        draft = renderer.render(markdown[:end])
        whole += len(draft_html(markdown[:end]))  # what sending it all each time costs
        assert draft["reset"] == (end == 23), "the draft only grew after the first"
        held += draft["settled"]
        writing = draft["writing"]
        sent += len(draft["settled"]) + len(writing)
    assert _text(held + writing) == _text(draft_html(markdown))
    assert sent < whole / 5, (sent, whole)
    discarded = renderer.render(markdown[:40])
    assert discarded["reset"] and _text(discarded["settled"] + discarded["writing"]) == _text(
        draft_html(markdown[:40])
    )
