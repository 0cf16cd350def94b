"""Uploads in `ponder ui`, in a real browser (Debian's Chromium through Playwright) against
the UI served for two users: Alice uploads pages of the Python docs written as a person's
DOCX and ODT (by pandoc, at run time), researches a question they answer, and the report
cites her file; Bob's Documents page does not list her files, and his run on the same
question does not cite them; a file over the size limit is refused with the limit named.

Every request a page makes stays on loopback (:class:`test_ui_browser.Page`); screenshots
go to ``test-output/`` (ui-uploads-*.png), one of them 375 px wide.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect
from support import UiServer, python_docs
from test_ui_browser import WAIT, Page, ask, operator_env

from ponder.testing import Rig, ScriptedBackend
from ponder.testing.formats import original, write_pandoc

QUESTION = "How do I compress a file with gzip in Python?"


def documents(tmp_path: Path) -> list[Path]:
    root = python_docs()
    folder = tmp_path / "mine"
    written = [
        write_pandoc(original(root, "library/gzip"), ".docx", folder),
        write_pandoc(original(root, "library/bz2"), ".odt", folder),
    ]
    big = folder / "field-recordings.txt"
    big.write_text("tide gauge reading\n" * 80_000)  # 1.5 MB, over the 1 MB limit
    return [*written, big]


def test_a_user_uploads_researches_them_and_no_one_else_sees_or_searches_them(
    scripted: ScriptedBackend, rig: Rig, corpus: Path, tmp_path: Path, browser: Any
) -> None:
    gzip_docx, bz2_odt, big = documents(tmp_path)
    env = {
        **operator_env(rig, corpus, tmp_path),
        "PONDER_DOCS_ROOTS": str(corpus),
        "PONDER_UI_TOKEN": "op-secret",
        "PONDER_UI_TOKENS": "alice=alice-secret,bob=bob-secret",
        "PONDER_UI_UPLOAD_FILE_MB": "1",
    }
    del env["PONDER_DOCS"]
    server = UiServer(env).start()
    alice = Page(browser, server)
    bob = Page(browser, server)
    try:
        alice.go("/?token=alice-secret")  # the address `ponder ui` gave her
        page = alice.go("/documents")
        page.set_input_files("#files", [str(gzip_docx), str(bz2_odt)])
        page.click("#upload button")
        expect(page.locator("#index-status")).to_have_text(re.compile("^Indexed"), timeout=WAIT)
        row = page.locator("table.uploads tr", has_text=gzip_docx.name)
        row.wait_for(timeout=WAIT)  # the page reloads with the files listed
        assert "indexed" in row.inner_text()
        assert page.locator("table.uploads tbody tr").count() == 2

        page.set_input_files("#files", str(big))
        page.click("#upload button")
        refused = page.locator("#upload-status.error")
        expect(refused).to_have_text(
            "field-recordings.txt is over 1 MB; this server takes files up to 1 MB.",
            timeout=WAIT,
        )
        alice.shot("uploads-refused")
        narrow = Page(browser, server, width=375)
        narrow.page.context.add_cookies(alice.context.cookies())
        small = narrow.go("/documents")
        assert small.evaluate("document.documentElement.scrollWidth") <= 375
        narrow.shot("uploads-375")
        narrow.close()

        page = ask(alice, QUESTION)
        page.wait_for_selector("#status.status-done", timeout=WAIT)
        sources = page.locator("#report ol.sources")
        expect(sources).to_contain_text(gzip_docx.name, timeout=WAIT)
        assert page.locator("#report a.cite").count() >= 1
        alice.shot("uploads-report")

        bob.go("/?token=bob-secret")
        theirs = bob.go("/documents")
        assert gzip_docx.name not in theirs.content() and bz2_odt.name not in theirs.content()
        assert theirs.locator("table.uploads").count() == 0
        page = ask(bob, QUESTION)
        page.wait_for_selector("#status.status-done, #status.status-failed", timeout=WAIT)
        assert gzip_docx.name not in page.content() and bz2_odt.name not in page.content()
    finally:
        alice.close()
        bob.close()
        server.stop()
