"""A finished report in `ponder ui`, in a real browser (Debian's Chromium through
Playwright): its sources are compact cards, folded; the report and each source copy with
one click; the Export menu closes as a menu does; a citation's evidence stays on a phone's
screen; the model picker's health line is the health of the model it picked, and a web
search that cannot be reached says why. The corpus is the standard library's pydoc pages.

Every request a page makes stays on loopback (:class:`test_ui_browser.Page`); screenshots
go to ``test-output/`` (ui-report-*.png), at 1280 and 375 px, light and dark.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from support import UiServer, closed_address
from test_ui_browser import WAIT, Page, ask, operator_env, wait_status

from ponder.testing import Rig, ScriptedBackend
from ponder.testing.corpus import pydoc_corpus

QUESTION = "How do I read and write JSON files in Python?"
PHONE_HEIGHT = 667
MODULES = ("json", "csv", "pickle", "shelve", "marshal", "configparser")


@pytest.fixture
def pydocs(tmp_path: Path) -> Path:
    pydoc_corpus(tmp_path / "pydoc", MODULES)
    return tmp_path / "pydoc"


@pytest.fixture
def finished(rig: Rig, pydocs: Path, tmp_path: Path, browser: Any) -> Iterator[tuple[Any, str]]:
    """A server, and the page path of a finished run on the question; the server is
    stopped however the test ends."""
    server = UiServer(operator_env(rig, pydocs, tmp_path)).start()
    try:
        tab = Page(browser, server)
        page = ask(tab, QUESTION)
        wait_status(page, "done")
        page.locator("#report a.cite").first.wait_for(timeout=WAIT)
        path = page.url.removeprefix(server.url)
        tab.close()
        yield server, path
    finally:
        if server.proc.poll() is None:
            assert server.stop() == 0, "`ponder ui` exits cleanly on Ctrl-C"


def test_sources_are_folded_cards_and_the_report_and_a_source_copy_in_one_click(
    finished: tuple[UiServer, str], browser: Any
) -> None:
    server, path = finished
    tab = Page(browser, server, permissions=["clipboard-read", "clipboard-write"])
    page = tab.go(path)
    cards = page.locator("#report ol.sources > li.card")
    cards.first.wait_for(timeout=WAIT)
    assert cards.count() >= 1
    for index in range(cards.count()):
        card = cards.nth(index)
        assert card.locator(".number").inner_text() == str(index + 1)
        assert "TXT file" in card.locator("p.origin").inner_text()  # what kind of source
        assert not card.locator("details.read").evaluate("d => d.open"), "passages folded"
    copy = page.get_by_role("button", name="Copy the report as Markdown")
    copy.click()
    expect(copy).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("# ") and "\n## Sources\n" in copied and "[1]" in copied
    first = cards.first
    copy = first.get_by_role("button", name="Copy source 1 as a reference")
    copy.click()
    expect(copy).to_have_text("Copied")
    line = page.evaluate("navigator.clipboard.readText()")
    title = first.locator("strong, a").first.inner_text()
    assert line.startswith("[1] ") and title in line and "pydoc" in line  # the file's path
    menu = page.locator("details.exports").first
    menu.locator("summary").click()
    assert menu.evaluate("d => d.open")
    page.keyboard.press("Escape")
    assert not menu.evaluate("d => d.open"), "Escape closes the Export menu"
    menu.locator("summary").click()
    page.locator("#report h2").first.click()
    assert not menu.evaluate("d => d.open"), "a click elsewhere closes it"
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900 if width > 400 else 812})
        tab.shot(f"report-{width}-light")
    tab.close()
    dark = Page(browser, server, color_scheme="dark")
    page = dark.go(path)
    page.locator("#report ol.sources > li.card").first.wait_for(timeout=WAIT)
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900 if width > 400 else 812})
        dark.shot(f"report-{width}-dark")
    dark.close()


def test_a_citations_evidence_stays_on_a_phones_screen(
    finished: tuple[UiServer, str], browser: Any
) -> None:
    server, path = finished
    tab = Page(browser, server, width=375)  # a small phone: 375 × 667
    page = tab.go(path)
    page.set_viewport_size({"width": 375, "height": PHONE_HEIGHT})
    cite = page.locator("#report .cited a.cite").first
    cite.wait_for(timeout=WAIT)
    page.wait_for_load_state("networkidle")  # the run's events replayed: the page as it stays
    # The citation's line just above the bottom of the screen, as a person scrolls to it
    # (room below the page, as a longer report has, so that the page can scroll there).
    page.evaluate("document.body.style.paddingBottom = '1000px'")
    top = page.evaluate(
        "el => el.getBoundingClientRect().top + window.scrollY", cite.element_handle()
    )
    page.evaluate(f"window.scrollTo(0, {top - PHONE_HEIGHT + 60})")
    line = cite.bounding_box()
    assert line is not None and line["y"] > PHONE_HEIGHT - 200, "the citation is near the bottom"
    cite.hover()
    box = page.locator("#report .cited .evidence").first.bounding_box()
    assert box is not None and box["height"] > 40
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE_HEIGHT, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    tab.shot("report-evidence-375", full=False)
    tab.close()


@pytest.fixture
def unusual(
    scripted: ScriptedBackend, corpus: Path, tmp_path: Path
) -> Iterator[tuple[UiServer, str]]:
    """A server whose configured model the model server lacks (it has two others), with a
    SearXNG that is not there; yields it and that SearXNG's address. Stopped however the
    test ends."""
    with closed_address() as closed, Rig(scripted, models=("scripted", "scripted-large")) as two:
        env = {
            **operator_env(two, corpus, tmp_path),
            "PONDER_MODEL": "llama3.1:8b",
            "PONDER_SEARXNG_URL": closed,
        }
        server = UiServer(env).start()
        try:
            yield server, closed
        finally:
            if server.proc.poll() is None:
                assert server.stop() == 0, "`ponder ui` exits cleanly on Ctrl-C"


def test_the_health_line_is_the_picked_models_not_the_missing_configured_one(
    unusual: tuple[UiServer, str], browser: Any
) -> None:
    server, closed = unusual
    tab = Page(browser, server)
    page = tab.go("/")
    health = page.locator("#model-health")
    page.wait_for_selector("#model-health.ok", timeout=5_000)
    assert page.locator("#model").input_value() == "scripted"
    assert "llama3.1:8b is not on the model server" in health.inner_text()
    page.select_option("#model", "scripted-large")
    expect(health).not_to_contain_text("asking", timeout=5_000)
    assert "ok" in (health.get_attribute("class") or "")
    searxng = page.locator("label", has=page.locator("input[value=searxng]"))
    expect(searxng).to_contain_text(f"not reachable now: {closed}")
    expect(page.locator("label", has=page.locator("input[value=local]"))).not_to_contain_text(
        "not reachable"
    )
    tab.shot("ask-model-switched", full=False)
    tab.close()
