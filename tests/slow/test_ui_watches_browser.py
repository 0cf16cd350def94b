"""Watched questions on `ponder ui`, in a real browser: a caller adds a watch within the
operator's ceilings, runs it now, reads what changed after a page of the folder changed, and
follows its Atom feed with a feed reader that has no login. Another caller sees none of it,
and a renewed feed address leaves the old one answering nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import feedparser
import httpx
from playwright.sync_api import expect
from support import UiServer, python_docs
from support.reports import docs_corpus
from test_ui_browser import WAIT, Page, operator_env

from ponder.testing import Rig

QUESTION = "How do I read and write JSON files in Python?"


def test_a_caller_watches_a_question_and_follows_its_feed(
    rig: Rig, tmp_path: Path, browser: Any
) -> None:
    folder = docs_corpus(python_docs(), tmp_path / "docs")
    env = {
        **operator_env(rig, folder, tmp_path),
        "PONDER_UI_TOKEN": "op-secret",
        "PONDER_UI_TOKENS": "alice=alice-secret,bob=bob-secret",
        "PONDER_CALLER_WATCHES": "1",
        "PONDER_CALLER_WATCH_EVERY": "12h",
    }
    server = UiServer(env).start()
    alice, bob = Page(browser, server), Page(browser, server)
    try:
        alice.go("/?token=alice-secret")
        page = alice.go("/watches")
        page.fill("#topic", QUESTION)
        page.select_option("#every", "1h")
        page.click("form.watch-form button[type=submit]")
        expect(page.locator("p.error")).to_contain_text("at most every 43200 seconds")
        expect(page.locator("#topic")).to_have_value(QUESTION), "what was typed is kept"
        page.select_option("#every", "1d")
        page.click("form.watch-form button[type=submit]")
        watch = page.locator("article.watch")
        expect(watch).to_have_count(1)
        expect(watch.locator(".meta")).to_contain_text("Every 1d")

        page.fill("#topic", "How do dataclasses work?")
        page.click("form.watch-form button[type=submit]")
        expect(page.locator("p.error")).to_contain_text("PONDER_CALLER_WATCHES")

        run_now(page, 1)
        expect(watch.locator("details")).to_contain_text("the first of this watch")
        run_now(page, 2)
        expect(watch.locator("details")).to_contain_text("Nothing changed")

        feed_link = watch.locator("a.feed").get_attribute("href") or ""
        page_file = folder / "library-json.html"
        page_file.write_text(
            page_file.read_text(encoding="utf-8").replace("JSON", "JSON (changed)", 3),
            encoding="utf-8",
        )
        run_now(page, 3)
        expect(watch.locator("details")).to_contain_text("Changed: json")
        alice.shot("watches")

        reader = httpx.get(server.url + feed_link, timeout=10)  # no token, no cookie
        assert reader.status_code == 200 and "atom" in reader.headers["content-type"]
        feed = feedparser.parse(reader.content)
        assert not feed.bozo and feed.feed.title == f"ponder watch: {QUESTION}"
        assert [e.title for e in feed.entries][:2] == ["Run 1: first run", "Run 2: nothing changed"]
        assert "changed sources" in feed.entries[2].title
        assert any(link.rel == "self" for link in feed.feed.links)

        bob.go("/?token=bob-secret")
        theirs = bob.go("/watches")
        assert QUESTION not in theirs.content() and theirs.locator("article.watch").count() == 0
        watch_id = feed_link.split("/")[2]
        refused = theirs.request.post(
            f"{server.url}/watches/{watch_id}/new-key", headers={"origin": server.url}
        )
        assert refused.status == 404, "another caller cannot touch it"

        page.click("form[action$='/new-key'] button")
        expect(watch.locator("a.feed")).not_to_have_attribute("href", feed_link)
        assert httpx.get(server.url + feed_link, timeout=10).status_code == 404
        fresh = watch.locator("a.feed").get_attribute("href") or ""
        assert httpx.get(server.url + fresh, timeout=10).status_code == 200
        assert httpx.get(server.url + "/watches", timeout=10).status_code == 401, (
            "the page needs a login"
        )
    finally:
        alice.close()
        bob.close()
        assert server.stop() == 0


def run_now(page: Any, number: int) -> None:
    with page.expect_navigation():  # the form posts, then the page comes back
        page.click("form[action$='/run'] button")
    status = page.locator("article.watch .status")
    for _ in range(WAIT // 250):
        page.reload()
        if re.search(rf"run {number}: (done|failed)", status.inner_text()):
            break
        page.wait_for_timeout(250)
    expect(status).to_have_text(f"run {number}: done")


def test_a_runs_page_counts_down_the_time_it_estimates_is_left(
    rig: Rig, scripted: Any, corpus: Path, tmp_path: Path, browser: Any
) -> None:
    from test_ui_browser import ask

    scripted.delay = 0.8  # rounds slow enough to read the estimate between them
    server = UiServer(operator_env(rig, corpus, tmp_path, PONDER_MAX_LOOPS="4")).start()
    tab = Page(browser, server)
    try:
        page = ask(tab, "How do tides work?")
        headline = page.locator("#headline")
        expect(headline).to_contain_text("round 2 of 4", timeout=WAIT)
        expect(headline).to_contain_text(re.compile(r"about \d+:\d\d left"))
        tab.shot("time-left")
        first = headline.inner_text()
        page.wait_for_timeout(1_100)
        later = headline.inner_text()
        if "round 2 of 4" in later:  # the same estimate, a second on: counted down
            assert _left(later) < _left(first), (first, later)
        page.wait_for_selector("#status.status-done", timeout=WAIT)
        expect(headline).not_to_contain_text("left")
    finally:
        tab.close()
        assert server.stop() == 0


def _left(headline: str) -> int:
    found = re.search(r"about (\d+):(\d\d) left", headline)
    assert found, headline
    return int(found[1]) * 60 + int(found[2])
