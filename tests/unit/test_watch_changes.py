"""The comparison of two runs' snapshots, on the cases a folder of real pages rarely shows:
a document that changed while unread, web pages (never fetched again), a quote spread over
other whitespace."""

from __future__ import annotations

from typing import Any

from ponder.core.sources import source_key
from ponder.services.watch.changes import compare

DOC = "/notes/tides.md"
PAGE = "https://example.org/tides"


def source(url: str, text: str, digest: str, read: bool = True) -> dict[str, Any]:
    """A snapshot's sources: this one, keyed as a snapshot keys them."""
    origin = "local" if url.startswith("/") else "web"
    return {source_key(url): {"url": url, "title": url, "origin": origin, "read": read,
                              "digest": digest, "text": text}}  # fmt: skip


def claim(url: str, quote: str) -> dict[str, Any]:
    return {"sentence": f"Said: {quote}", "url": url, "title": url, "quote": quote}


def test_a_document_changed_while_unread_is_named_but_its_findings_are_not_called_new() -> None:
    before = {"manifest": {DOC: [1, 10, "old"]}, "sources": {}, "claims": []}
    after = {"sources": source(DOC, "Tides rise twice a day.", "new"),
             "claims": [claim(DOC, "Tides rise twice a day.")]}  # fmt: skip
    found = compare(before, after)
    assert [(c.kind, c.url) for c in found.sources] == [("changed", DOC)]
    assert found.new_findings == [] and found.gone_findings == []


def test_a_web_page_is_new_when_first_read_and_never_changed_by_what_each_run_read() -> None:
    before = {"sources": source(PAGE, "The Moon pulls.", "a"),
              "claims": [claim(PAGE, "The Moon pulls.")]}  # fmt: skip
    after = {"sources": source(PAGE, "Another passage read.", "b"),
             "claims": [claim(PAGE, "Another passage read.")]}  # fmt: skip
    assert compare(before, after).nothing, "other passages of the same page: no change"
    first = compare({"sources": {}, "claims": []}, after)
    assert [(c.kind, c.url) for c in first.sources] == [("new", PAGE)]
    assert [f.quote for f in first.new_findings] == ["Another passage read."]


def test_a_quote_is_found_across_other_line_breaks_and_an_ellipsis() -> None:
    text = "High tide comes\nabout every twelve hours.\n\nLow tide follows."
    before = {"manifest": {DOC: [1, 10, "old"]},
              "sources": source(DOC, text, "old"),
              "claims": [claim(DOC, "… High tide comes about every twelve hours.")]}  # fmt: skip
    after = {"sources": source(DOC, text + "\nSpring tides are larger.", "new"),
             "claims": [claim(DOC, "High tide comes about every twelve hours."),
                        claim(DOC, "Spring tides are larger.")]}  # fmt: skip
    found = compare(before, after)
    assert [f.quote for f in found.new_findings] == ["Spring tides are larger."]
    assert found.gone_findings == [], "the old finding's text is still there"


def test_an_extractive_reports_quotes_are_its_findings() -> None:
    from ponder.core.result import Report, RunStats, SourceRef
    from ponder.services.watch.snapshot import findings_of

    passage = "Tides rise twice a day.\nThe Moon pulls the sea."
    ref = SourceRef(number=1, cited=True, url=DOC, title="Tides", origin="local",
                    passages=[passage])  # fmt: skip
    markdown = (
        "# Tides\n\n*Extractive report.*\n\n## From the sources\n\n"
        "> Tides rise twice a day.\n>\n> The Moon pulls the sea.\n>\n> — Tides [1]\n\n"
        "> A quote of nothing read.\n>\n> — Tides [1]\n"
    )
    report = Report(topic="Tides", markdown=markdown, summary="", sources=[ref],
                    stats=RunStats(extractive_report=True), thread_id="t")  # fmt: skip
    quotes = [(claim["url"], claim["quote"]) for claim in findings_of(report)]
    assert quotes == [(DOC, "Tides rise twice a day."), (DOC, "The Moon pulls the sea.")]
