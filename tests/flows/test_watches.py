"""Watched questions end to end with the scripted model over pages of the Python docs that
change between runs (a page added, a fact changed, a page removed): the change report names
exactly those changes, and an unchanged folder gives "nothing changed"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support import python_docs
from support.reports import docs_corpus

from ponder.api import watches
from ponder.testing import Rig

QUESTION = "How do I read and write JSON files in Python?"


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    return docs_corpus(python_docs(), tmp_path / "docs")


def watch(rig: Rig, folder: Path) -> watches.Watch:
    return watches.add(
        QUESTION, "1d", model="scripted", ollama_base_url=rig.url, search="local",
        docs=[str(folder)], mode="loop", max_loops=2,
    )  # fmt: skip


def latest_counts(found: watches.Watch) -> dict[str, int]:
    return watches.runs(found.id)[-1].changes


async def test_an_unchanged_folder_gives_nothing_changed(rig: Rig, pages: Path) -> None:
    watched = watch(rig, pages)
    first = await watches.arun(watched)
    assert first.report is not None and first.report.citations
    second = await watches.arun(watched)
    assert second.headline == "Nothing changed."
    assert set(latest_counts(watched).values()) == {0}
    said = watches.changes(watched.id)
    assert said is not None and "**Nothing changed**" in said and "compared with run 1" in said


async def test_a_changed_fact_is_named_with_the_findings_it_made_and_unmade(
    rig: Rig, pages: Path
) -> None:
    watched = watch(rig, pages)
    first = await watches.arun(watched)
    assert first.report is not None
    cited = first.report.citations[0]
    page = Path(cited.url)
    html = page.read_text(encoding="utf-8")
    phrase = _phrase_in(cited.quote, html)
    page.write_text(html.replace(phrase, "the order is now random, changed"), encoding="utf-8")

    second = await watches.arun(watched)
    counts = latest_counts(watched)
    assert (counts["changed_sources"], counts["new_sources"], counts["gone_sources"]) == (1, 0, 0)
    said = watches.changes(watched.id) or ""
    assert f"Changed: {cited_title(first, cited.url)}, `{page}`" in said
    assert "## Findings that no longer hold" in said and cited.sentence in said
    gone = said.split("## Findings that no longer hold")[1].split("## Sources")[0]
    assert _linked_files(gone) == {str(page)}, "only the changed page's findings"
    assert second.report is not None and counts["new_findings"] >= 1
    new = said.split("## New findings")[1].split("## Findings")[0]
    assert _linked_files(new) == {str(page)}
    assert "random, changed" in new, "a new finding quotes the new text"


async def test_a_page_added_is_a_new_source_with_its_findings(rig: Rig, tmp_path: Path) -> None:
    folder = docs_corpus(python_docs(), tmp_path / "docs")
    json_page = folder / "library-json.html"
    kept_aside = json_page.read_bytes()
    json_page.unlink()
    watched = watch(rig, folder)
    first = await watches.arun(watched)
    assert first.report is not None and str(json_page) not in {s.url for s in first.report.sources}
    json_page.write_bytes(kept_aside)

    second = await watches.arun(watched)
    assert second.report is not None and str(json_page) in {s.url for s in second.report.sources}
    counts = latest_counts(watched)
    assert (counts["new_sources"], counts["changed_sources"], counts["gone_sources"]) == (1, 0, 0)
    said = watches.changes(watched.id) or ""
    assert f"- New: {cited_title(second, str(json_page))}, `{json_page}`" in said
    assert counts["new_findings"] >= 1
    new = said.split("## New findings")[1].split("## ")[0]
    assert _linked_files(new) == {str(json_page)}, "findings new because the page is"
    assert counts["gone_findings"] == 0, "nothing the first run found stopped holding"


async def test_a_page_removed_is_gone_with_the_findings_that_rested_on_it(
    rig: Rig, pages: Path
) -> None:
    watched = watch(rig, pages)
    first = await watches.arun(watched)
    assert first.report is not None
    page = Path(first.report.citations[0].url)
    page.unlink()

    second = await watches.arun(watched)
    assert second.report is not None and str(page) not in {s.url for s in second.report.sources}
    counts = latest_counts(watched)
    assert (counts["gone_sources"], counts["new_sources"], counts["changed_sources"]) == (1, 0, 0)
    assert counts["new_findings"] == 0, "the pages cited instead were there before"
    said = watches.changes(watched.id) or ""
    assert f"- Gone: {cited_title(first, str(page))}, `{page}`" in said
    gone = said.split("## Findings that no longer hold")[1].split("## Sources")[0]
    cited_there = {c.sentence for c in first.report.citations if c.url == str(page)}
    assert _linked_files(gone) == {str(page)}
    assert all(sentence in gone for sentence in cited_there)


def cited_title(report: Any, url: str) -> str:
    return next(s.title for s in report.report.sources if s.url == url)


def _phrase_in(quote: str, html: str) -> str:
    """Words of the quote that stand together in the page's HTML (no tag between them)."""
    words = quote.replace("…", " ").split()
    for size in (6, 5, 4):
        for start in range(len(words) - size, -1, -1):
            phrase = " ".join(words[start : start + size])
            if re.search(r"[A-Za-z]{3}", phrase) and html.count(phrase) == 1:
                return phrase
    raise AssertionError(f"no phrase of {quote!r} stands alone in the page")


def _linked_files(markdown: str) -> set[str]:
    return set(re.findall(r", `(/[^`]+)`", markdown))
