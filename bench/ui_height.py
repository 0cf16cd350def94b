"""How much page a finished focused report takes: the quality benchmark's first question,
researched by the scripted rig over that benchmark's corpus (pydoc pages of the standard
library) and asked from the page as a person would, its sources folded as the page shows
them. The page's whole height, in heights of the window (target at 1280×900: at most 1.5),
at a laptop's and a phone's size, in each theme.

Chromium is Debian's, driven by Playwright, as in the tests; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from quality import QUESTIONS, build_corpus
from ui import operator_env
from workspace import ROOT

from ponder.testing import Rig, ScriptedBackend

sys.path.insert(0, str(ROOT / "tests"))
from support import UiServer  # (the tests' way of starting `ponder ui`)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
SIZES = {"laptop": (1280, 900), "phone": (375, 812)}
TARGET = 1.5  # window heights at 1280×900


def bench_report_height() -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    question = QUESTIONS[0][0]
    with tempfile.TemporaryDirectory(prefix="ponder-height-") as work:
        corpus = Path(work) / "corpus"
        build_corpus(corpus)
        with Rig(ScriptedBackend(), models=("scripted",)) as rig, sync_playwright() as pw:
            server = UiServer(_env(rig, corpus, Path(work))).start()
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                path = _ask(browser, server.url, question)
                heights = {
                    f"{size} {theme}": _height(browser, server.url + path, SIZES[size], theme)
                    for size in SIZES
                    for theme in ("light", "dark")
                }
            finally:
                browser.close()
                server.stop()
    return {"question": question, "windows": heights, "target": TARGET}


def _env(rig: Rig, corpus: Path, work: Path) -> dict[str, str]:
    """The UI bench's operator settings (ui.py), in this measure's own folders."""
    folders = {"PONDER_DATA_DIR": str(work / "data"), "PONDER_CACHE_DIR": str(work / "cache")}
    return {**operator_env(rig, corpus), **folders}


def _ask(browser: Any, url: str, question: str) -> str:
    page = browser.new_page()
    page.goto(url + "/")
    page.fill("#topic", question)
    page.check("input[name=mode][value=loop]")
    page.click("form.ask button[type=submit]")
    page.wait_for_selector("#report a.cite", timeout=120_000)
    path: str = page.url.removeprefix(url)
    page.close()
    return path


def _height(browser: Any, url: str, size: tuple[int, int], theme: str) -> float:
    """The finished report's page height over the window's, as a person opens it."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#report a.cite")
    page.wait_for_load_state("networkidle")  # the run's replay is over: as it stays
    total = page.evaluate("document.documentElement.scrollHeight")
    context.close()
    return round(total / height, 2)


def table_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    if not figures or "windows" not in figures:
        return []
    windows = figures["windows"]
    laptop = max(v for k, v in windows.items() if k.startswith("laptop"))
    said = ", ".join(f"{k} {v}" for k, v in windows.items())
    mark = "  ✓ target met" if laptop <= TARGET else "  ✗ target MISSED"
    return [("ui: finished focused report, page height in windows", said + mark)]


if __name__ == "__main__":
    print(bench_report_height())
