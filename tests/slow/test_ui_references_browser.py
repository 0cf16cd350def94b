"""A user's own ZIM archive and reference library in `ponder ui`, in a real browser
(Debian's Chromium through Playwright) against the UI served for two users, the operator
allowing archives (PONDER_UI_UPLOAD_ZIM_MB): Alice uploads a dozen pages of the Python
docs as a Kiwix archive written at run time, with a BibTeX library and the notes it
attaches; her Documents page says what the archive and the library hold; she researches
a question the archive answers and the report cites its article. Bob's page lists none of
it, his form offers no archive, and his run on the same question does not cite it.

Every request a page makes stays on loopback (:class:`test_ui_browser.Page`); screenshots
go to ``test-output/`` (ui-references-*.png), one of them 375 px wide.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from support import UiServer, python_docs
from test_ui_browser import WAIT, Page, operator_env

from ponder.testing import Rig, ScriptedBackend
from ponder.testing.zim import write_zim

QUESTION = "How do I compress a file with gzip in Python?"
PAGES = [
    f"library/{name}.html"
    for name in (
        "gzip", "bz2", "lzma", "zlib", "zipfile", "tarfile",
        "shutil", "pathlib", "json", "csv", "random", "heapq",
    )
]  # fmt: skip
NOTES = "# Lighthouse keepers\n\nKeepers trimmed the wicks every four hours.\n"
LIBRARY = """@book{stevenson1850,
  title = {Keeping the Light},
  author = {Stevenson, Alan},
  year = {1850},
  file = {lighthouses.md}
}
"""


def files(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "mine"
    folder.mkdir()
    archive = write_zim(Path(python_docs()), PAGES, folder / "python-docs.zim")
    (folder / "lighthouses.md").write_text(NOTES)
    (folder / "keepers.bib").write_text(LIBRARY)
    return [archive, folder / "lighthouses.md", folder / "keepers.bib"]


def test_a_user_researches_their_own_archive_and_no_one_else_sees_or_searches_it(
    scripted: ScriptedBackend, rig: Rig, corpus: Path, tmp_path: Path, browser: Any
) -> None:
    uploaded = files(tmp_path)
    env = {
        **operator_env(rig, corpus, tmp_path),
        "PONDER_DOCS_ROOTS": str(corpus),
        "PONDER_UI_TOKEN": "op-secret",
        "PONDER_UI_TOKENS": "alice=alice-secret,bob=bob-secret",
        "PONDER_UI_UPLOAD_ZIM_MB": "20",
        "PONDER_MAX_LOOPS": "1",
    }
    del env["PONDER_DOCS"]
    server = UiServer(env).start()
    alice = Page(browser, server)
    bob = Page(browser, server)
    try:
        alice.go("/?token=alice-secret")
        page = alice.go("/documents")
        page.set_input_files("#files", [str(path) for path in uploaded])
        page.click("#upload button")
        expect(page.locator("#index-status")).to_have_text(re.compile("^Indexed"), timeout=WAIT)
        row = page.locator("table.uploads tr", has_text="python-docs.zim")
        expect(row).to_contain_text(
            "ZIM archive: “Python 3.11 documentation”, 12 articles, full-text index",
            timeout=WAIT,
        )
        library = page.locator("table.uploads tr", has_text="keepers.bib")
        expect(library).to_contain_text("library: 1 entry, 1 attachment found")
        alice.shot("references-documents")
        narrow = Page(browser, server, width=375)
        narrow.page.context.add_cookies(alice.context.cookies())
        small = narrow.go("/documents")
        assert small.evaluate("document.documentElement.scrollWidth") <= 375
        narrow.shot("references-375")
        narrow.close()

        page = alice.go("/")
        page.fill("#topic", QUESTION)
        page.check("input[name=mode][value=loop]")
        page.uncheck("input[name=search][value=local]")
        page.check("input[name=search][value=zim]")
        page.click("form.ask button[type=submit]")
        page.wait_for_url("**/runs/*")
        page.wait_for_selector("#status.status-done", timeout=WAIT)
        sources = page.locator("#report ol.sources")
        expect(sources).to_contain_text("python-docs.zim", timeout=WAIT)
        expect(sources).to_contain_text("library/gzip.html")
        alice.shot("references-report")

        bob.go("/?token=bob-secret")
        theirs = bob.go("/documents")
        assert "python-docs.zim" not in theirs.content()
        assert "keepers.bib" not in theirs.content()
        form = bob.go("/")
        assert form.locator("input[name=search][value=zim]").count() == 0
        form.fill("#topic", QUESTION)
        form.check("input[name=mode][value=loop]")
        form.click("form.ask button[type=submit]")
        form.wait_for_url("**/runs/*")
        form.wait_for_selector("#status.status-done, #status.status-failed", timeout=WAIT)
        assert "python-docs.zim" not in form.content() and "Stevenson" not in form.content()
    finally:
        alice.close()
        bob.close()
        server.stop()
