"""`ponder ui`'s live view tells the truth (issue 46): the timeline follows the newest step
until the person scrolls away, the draft is rendered where the report will be and says why
it was replaced, the deep pipeline names its researchers and its counters agree with the
cost line, a clarifying answer is seen received, source numbers are the report's, and a
finished run's page draws its report at once.

Each test drives Debian's Chromium against `ponder ui` on the scripted rig; a request off
loopback fails it (``Page``). Screenshots: test-output/ui-live-*.png.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import UiServer
from test_ui_browser import WAIT, Page, ask, log_of, operator_env, wait_status

from ponder.testing import Reply, Rig, ScriptedBackend

# The report the scripted model writes, word by word: it cites the Moon's page before the
# tides page (so the report's numbers are not the run's), and compares in a table.
TABLE_REPORT = (
    "# Tides\n\nThe Moon's gravity raises a bulge in the ocean on the side facing it and "
    "another on the far side [3]. Spring tides happen when the Sun and Moon align [1].\n\n"
    "| Tide | When |\n|---|---|\n| Spring tide | the Sun and Moon align [1] |\n"
    "| Neap tide | the Sun and Moon are at right angles [1] |\n"
)


def streamed(text: str, delay: float) -> Reply:
    return Reply(pieces=[word + " " for word in text.split(" ")], piece_delay=delay)


def looping(line: str) -> Reply:
    """A model stuck in a loop: ponder discards what it streamed."""
    return Reply(
        pieces=itertools.cycle([*(w + " " for w in line.split()), "\n"]), piece_delay=0.005
    )


@pytest.fixture
def server(rig: Rig, corpus: Path, tmp_path: Path) -> Iterator[UiServer]:
    """`ponder ui` allowing six rounds: a timeline long enough to scroll."""
    served = UiServer(operator_env(rig, corpus, tmp_path, PONDER_MAX_LOOPS="6")).start()
    yield served
    if served.proc.poll() is None:
        assert served.stop() == 0


GAPS = itertools.count()


def never_enough(_request: Any) -> dict[str, Any]:
    """A reflection that always wants another round."""
    n = next(GAPS)
    return {
        "is_sufficient": False,
        "knowledge_gap": f"gap {n}",
        "follow_up_queries": [f"moon tide height {n}", f"harbour pilots {n}"],
        "scope": "focused",
        "subtopics": [],
    }


def shows_newest(page: Any) -> None:
    """The box is scrolled to its newest step: in the frame after the step came, so waited
    for (a frame can take a while on a loaded machine), briefly."""
    page.wait_for_function(
        "() => { const t = document.getElementById('timeline');"
        " return t.scrollHeight - t.scrollTop - t.clientHeight <= 24; }",
        timeout=3_000,
    )


def box(page: Any) -> dict[str, float]:
    return page.eval_on_selector(  # type: ignore[no-any-return]
        "#timeline",
        "e => ({top: e.scrollTop, bottom: e.scrollHeight - e.scrollTop - e.clientHeight,"
        " items: e.children.length, overflow: e.scrollHeight > e.clientHeight})",
    )


def test_the_timeline_follows_the_newest_step_until_the_person_scrolls_away(
    scripted: ScriptedBackend, server: UiServer, browser: Any
) -> None:
    scripted.delay = 0.35
    scripted.overrides["Reflection"] = never_enough
    tab = Page(browser, server)
    page = ask(tab, "How do tides work?")
    page.wait_for_function(
        "() => { const t = document.getElementById('timeline');"
        " return t.scrollHeight > t.clientHeight + 40; }",
        timeout=WAIT,
    )
    shows_newest(page)  # the box follows its newest step
    latest = page.locator("#latest")
    assert latest.is_hidden()

    page.hover("#timeline")
    page.mouse.wheel(0, -5000)  # the person scrolls up to read Round 1
    page.wait_for_function("() => document.getElementById('timeline').scrollTop === 0")
    items = box(page)["items"]
    page.wait_for_function(f"() => document.getElementById('timeline').children.length > {items}")
    assert box(page)["top"] == 0, "a new step does not pull the reader away"
    latest.wait_for(state="visible", timeout=WAIT)
    tab.shot("live-jump")

    latest.click()
    assert latest.is_hidden()
    shows_newest(page)
    items = box(page)["items"]
    page.wait_for_function(f"() => document.getElementById('timeline').children.length > {items}")
    shows_newest(page)  # following again after the jump
    wait_status(page, "done")
    tab.close()


def test_the_draft_is_rendered_where_the_report_will_be_and_says_why_it_was_replaced(
    scripted: ScriptedBackend, rig: Rig, corpus: Path, tmp_path: Path, browser: Any
) -> None:
    replies = iter(
        [looping("Round and round the same words go [1]."), streamed(TABLE_REPORT, 0.12)]
    )
    scripted.overrides["text"] = lambda _r: next(replies, TABLE_REPORT)
    server = UiServer(operator_env(rig, corpus, tmp_path, PONDER_MAX_LOOPS="1")).start()
    tab = Page(browser, server)
    page = ask(tab, "How do tides work?")
    note = page.locator("#report-note")
    note.wait_for(state="visible", timeout=WAIT)
    assert "draft was discarded" in note.inner_text(), note.inner_text()

    draft = page.locator("#draft-text")
    draft.locator("table").wait_for(timeout=WAIT)  # a table while it streams, not pipes
    assert draft.locator("h1").inner_text() == "Tides"
    text = draft.inner_text()
    assert "|" not in text and "#" not in text, text
    order = page.evaluate(
        "() => [...document.querySelectorAll('#live, #report-note, #draft, #report')]"
        ".map(e => e.id)"
    )
    assert order == ["live", "report-note", "draft", "report"], "the draft is where the report goes"
    assert page.locator("#live #draft").count() == 0
    top = page.locator("#draft").bounding_box()
    assert top is not None and 0 <= top["y"] < 900, "the page brought the draft into view"
    tab.shot("live-draft", full=False)

    wait_status(page, "done")
    page.locator("#report a.cite").first.wait_for(timeout=WAIT)
    assert page.locator("#draft").is_hidden()
    said = note.inner_text()
    assert "draft was discarded (a sentence is repeated" in said, "the reason stays there"
    assert "the report below is the model's next attempt" in said, said
    assert page.locator("#report table").count() == 1
    tab.shot("live-draft-done")
    page.set_viewport_size({"width": 375, "height": 812})
    assert page.evaluate("document.documentElement.scrollWidth") <= 375, "no sideways scroll"
    tab.shot("live-draft-done-375")
    tab.close()
    assert server.stop() == 0


def test_the_live_source_numbers_become_the_reports(
    scripted: ScriptedBackend, rig: Rig, corpus: Path, tmp_path: Path, browser: Any
) -> None:
    scripted.overrides["text"] = TABLE_REPORT
    server = UiServer(operator_env(rig, corpus, tmp_path, PONDER_MAX_LOOPS="1")).start()
    tab = Page(browser, server)
    page = ask(tab, "How do tides work?")
    wait_status(page, "done")
    page.locator("#report a.cite").first.wait_for(timeout=WAIT)
    done = log_of(server, page)[-1]
    numbers = {s["url"]: s for s in done["sources"]}
    assert any(s["cited"] and s["number"] != s["registry"] for s in numbers.values()), (
        "the run must renumber for this test to mean anything"
    )
    assert any(not s["cited"] for s in numbers.values())
    page.click("#live summary")
    for _ in range(2):  # live, then as a finished run's page replays it
        items = page.locator("#timeline li.source[data-url]")
        assert items.count() == len(numbers)
        for index in range(items.count()):
            item = items.nth(index)
            source = numbers[item.get_attribute("data-url") or ""]
            shown = item.locator(".num").inner_text()
            if source["cited"]:
                assert shown == f"[{source['number']}]"
                listed = page.locator(f"#source-{source['number']} code").inner_text()
                assert listed == source["url"], "the report's [n] is the same source"
            else:
                assert shown == "" and "read, not cited" in item.inner_text()
        tab.shot("live-numbers")
        page.reload()
        page.click("#live summary")
    tab.close()
    assert server.stop() == 0


def test_the_deep_pipeline_names_its_researchers_and_its_counters_agree_with_the_cost(
    scripted: ScriptedBackend, server: UiServer, browser: Any
) -> None:
    topics = iter([["moon orbit", "harbour pilots"]])
    scripted.overrides["SupervisorDecision"] = lambda _r: {
        "reflection": "r",
        "subtopics": next(topics, []),
        "research_complete": False,
    }
    scripted.overrides["Reflection"] = never_enough
    scripted.delay = 0.05
    tab = Page(browser, server, color_scheme="dark")
    page = ask(tab, "Tides, harbours and the Moon", mode="deep")
    wait_status(page, "done")
    page.locator("#report a.cite").first.wait_for(timeout=WAIT)
    page.click("#live summary")
    assert page.locator("#latest").is_hidden(), "nobody scrolled: nothing waits below"
    cards = page.locator("#researchers .researcher")
    assert sorted(cards.locator("p").all_inner_texts()) == ["harbour pilots", "moon orbit"]
    for text in cards.locator("span").all_inner_texts():
        assert re.fullmatch(r"round 6 of 6 · \d+ sources? · done", text), text
    rounds = page.locator("#timeline li.round strong").all_inner_texts()
    assert rounds and "researcher · " not in " ".join(rounds)
    assert {r.split(" · ")[0] for r in rounds} == {"moon orbit", "harbour pilots"}
    tab.shot("live-deep")

    def figures(text: str) -> dict[str, int]:
        found = re.findall(r"([\d,]+) (round|source|token)", text)
        return {word: int(count.replace(",", "")) for count, word in found}

    headline, cost = page.locator("#headline").inner_text(), page.locator("#cost").inner_text()
    assert figures(headline) == figures(cost) and figures(cost)["round"] == 12, (headline, cost)
    page.reload()  # the finished run's page: its replay counts the same
    page.wait_for_function("() => /done/.test(document.getElementById('headline').textContent)")
    assert figures(page.locator("#headline").text_content() or "") == figures(cost)
    tab.close()


def test_a_clarifying_answer_is_shown_received_and_the_question_is_not_asked_again(
    scripted: ScriptedBackend, server: UiServer, browser: Any
) -> None:
    scripted.overrides["Clarification"] = {  # a small model asks again after the answer
        "need_clarification": True,
        "question": "Which coast do you mean?",
        "verification": "",
    }
    tab = Page(browser, server)
    page = ask(tab, "Tides and harbours", mode="deep")
    wait_status(page, "waiting")
    page.fill("#answer", "The Atlantic coast")
    page.click("#clarify button")
    page.locator("#timeline li.answered").wait_for(timeout=WAIT)
    assert page.locator("#timeline li.answered").inner_text() == "You answered: The Atlantic coast"
    wait_status(page, "done")
    timeline = page.locator("#timeline")
    asked = timeline.locator("li.asked").all_text_contents()
    assert asked == ["ponder asked: Which coast do you mean?"], "asked once"
    assert page.locator("#clarify").is_hidden()
    tab.close()


def test_a_finished_runs_page_draws_its_report_at_once_and_the_replay_leaves_it_be(
    scripted: ScriptedBackend, server: UiServer, browser: Any
) -> None:
    tab = Page(browser, server)
    page = ask(tab, "How do tides work?")
    wait_status(page, "done")
    page.locator("#report a.cite").first.wait_for(timeout=WAIT)
    path = page.url.removeprefix(server.url)
    tab.close()

    watcher = Page(browser, server)
    watcher.context.add_init_script(
        """
        window.__changes = [];
        document.addEventListener('DOMContentLoaded', () => {
          const watch = (id, options) => new MutationObserver((m) => window.__changes.push(id))
            .observe(document.getElementById(id), options);
          watch('report', {childList: true, subtree: true, characterData: true});
          watch('draft', {attributes: true});
          watch('live', {attributes: true, attributeFilter: ['open']});
        });
        """
    )
    page = watcher.go(path)
    assert page.locator("#report a.cite").count() > 0, "drawn by the server, before any script"
    page.wait_for_function("() => document.querySelectorAll('#timeline li.done').length === 1")
    page.wait_for_timeout(300)
    assert page.evaluate("window.__changes") == [], "the replay moved nothing"
    assert (
        page.locator("#draft").is_hidden() and page.locator("#live").get_attribute("open") is None
    )
    watcher.close()
