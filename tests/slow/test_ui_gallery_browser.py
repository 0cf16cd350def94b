"""Every state of `ponder ui`, at a laptop's and a phone's width, in both themes: the ask
page, a deep run at work, a clarifying question, the finished report with a citation's
evidence open, a conversation of two turns with its Export menu, the history and the
documents. Each is kept as a screenshot in ``test-output/gallery-<state>-<width>-<theme>.png``
(people look at them: the README's picture of the page is one), and no state scrolls
sideways on a phone. Debian's Chromium, the scripted rig; a request off loopback fails it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import UiServer, ask_once
from test_ui_browser import OUTPUT, WAIT, Page, ask, operator_env, wait_status

from ponder.testing import Rig, ScriptedBackend

SIZES = ((1280, 900), (375, 812))


def gallery(page: Any, state: str, *, full: bool = True, hover: str = "") -> None:
    """The page as it is now, at each size and in each theme; none scrolls sideways."""
    OUTPUT.mkdir(exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for theme in ("light", "dark"):
            page.emulate_media(color_scheme=theme)
            if hover:
                page.locator(hover).first.hover()
            name = OUTPUT / f"gallery-{state}-{width}-{theme}.png"
            page.screenshot(path=str(name), full_page=full)
        sideways = page.evaluate("document.documentElement.scrollWidth")
        assert sideways <= width, f"{state} scrolls sideways at {width} px ({sideways} px wide)"


@pytest.fixture
def ui(rig: Rig, corpus: Path, tmp_path: Path) -> Iterator[UiServer]:
    served = UiServer(operator_env(rig, corpus, tmp_path)).start()
    yield served
    assert served.stop() == 0, "`ponder ui` exits cleanly on Ctrl-C"


def test_every_state_of_the_page_at_both_widths_in_both_themes(
    scripted: ScriptedBackend, ui: UiServer, browser: Any
) -> None:
    tab = Page(browser, ui)
    page = tab.go("/")
    page.wait_for_selector("#model-health.ok", timeout=WAIT)
    gallery(page, "ask", full=False)

    ask_once(scripted)
    scripted.overrides["SupervisorDecision"] = lambda _r: {
        "reflection": "r",
        "subtopics": ["moon orbit", "harbour pilots"],
        "research_complete": False,
    }
    page = ask(tab, "Tides, harbours and the Moon", mode="deep")
    page.wait_for_selector("#clarify:not([hidden])", timeout=WAIT)
    gallery(page, "clarify", full=False)
    scripted.delay = 0.4  # slow enough to be seen at work
    page.fill("#answer", "The Atlantic coast")
    page.click("#clarify button")
    page.wait_for_selector("#researchers .researcher", timeout=WAIT)
    page.wait_for_selector("#timeline li.source", timeout=WAIT)
    gallery(page, "live", full=False)
    scripted.delay = 0.0
    wait_status(page, "done")
    page.locator("#report a.cite").first.wait_for(timeout=WAIT)
    page.wait_for_load_state("networkidle")
    gallery(page, "report")
    gallery(page, "evidence", full=False, hover="#report .cited a.cite")

    page.fill("#follow-up", "What do harbour pilots read?")
    page.click("#follow button")
    page.wait_for_selector("section.turn#turn-2", timeout=WAIT)
    wait_status(page, "done")
    page.locator("#report a.cite").first.wait_for(timeout=WAIT)
    page.wait_for_load_state("networkidle")
    page.locator("details.exports summary").first.click()  # the Export menu, open
    gallery(page, "thread")

    gallery(tab.go("/runs"), "history")
    gallery(tab.go("/documents"), "documents")
    tab.close()
