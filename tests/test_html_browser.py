"""The HTML report in a real browser (Debian's Chromium, driven by Playwright): hovering a
citation shows the passage it rests on; clicking it shows that passage, marked, in the
source's entry. A screenshot of the hover is kept in ``test-output/``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import over_corpus

from ponder import research
from ponder.interfaces.html import render_html
from ponder.testing import Rig

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
OUTPUT = Path(__file__).resolve().parent.parent / "test-output"
# As the machine's notes advise for a closed network: no background connections.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: `make test` installs it.")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


def test_a_citation_shows_its_passage_on_hover_and_marks_it_on_click(
    rig: Rig, corpus: Path, tmp_path: Path, browser: object
) -> None:
    report = research("How do tides work?", **over_corpus(rig, corpus, max_loops=1))
    assert report.citations, "the rig's model cites its notes"
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(report), encoding="utf-8")
    first = report.citations[0]
    source = next(s for s in report.cited_sources() if s.number == first.number)

    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(page_file.as_uri())
    cite = page.locator(".cited a.cite").first
    evidence = page.locator(".cited .evidence").first
    assert not evidence.is_visible()
    cite.hover()
    assert evidence.is_visible()
    shown = " ".join(evidence.inner_text().split())
    assert first.quote[:60] in shown and source.title in shown
    OUTPUT.mkdir(exist_ok=True)
    shot = OUTPUT / "html-citation-hover.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")

    cite.click()
    assert page.url.endswith(f"#source-{first.number}")
    marked = page.locator(f"#source-{first.number} mark").first
    assert marked.is_visible() and first.quote[:40] in " ".join(marked.inner_text().split())
    page.close()
