"""`ponder ui` keeps a run as a conversation: after a follow-up, the page holds both turns
(each question, report and sources, with ids of its own), the history lists the thread
under its first question and finds it by any part of a word of any of its questions, and
the exports hold the whole thread or one turn."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ponder.interfaces.ui.app import create_app
from ponder.testing import Rig

FIRST = "How do tides work?"
SECOND = "Who is gathering the harbour's tide readings?"


@pytest.fixture
def ui(rig: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    for name, value in {
        "PONDER_MODEL": "scripted",
        "PONDER_OLLAMA_BASE_URL": rig.url,
        "PONDER_SEARCH": "local",
        "PONDER_DOCS": str(corpus),
        "PONDER_MAX_LOOPS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    app = create_app("127.0.0.1", 8765)
    with TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False) as client:
        yield client


def done(client: TestClient, path: str, times: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = client.get(f"{path}/log").json()
        ended = sum(e["kind"] == "status" and e["status"] == "done" for e in log) == times
        if ended and 'data-live="0"' in client.get(path).text:  # its task ended too
            return log  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError("the run did not finish")


@pytest.fixture
def thread(ui: TestClient) -> str:
    path = ui.post("/runs", data={"topic": FIRST, "mode": "loop"}).headers["location"]
    done(ui, path, 1)
    asked = ui.post(f"{path}/follow-up", data={"topic": SECOND})
    assert asked.headers["location"] == f"{path}#turn-2", "the page opens at the new turn"
    done(ui, path, 2)
    return str(path)


def ids(html: str) -> list[str]:
    return re.findall(r'\bid="([^"]+)"', html)


def test_the_page_holds_both_turns_each_with_its_own_sources(ui: TestClient, thread: str) -> None:
    page = ui.get(thread).text
    assert f"<title>{FIRST.replace('?', '?')} · ponder</title>" in page
    assert re.search(r'<h1 id="topic">How do tides work\?</h1>', page)
    assert page.index("Question 1") < page.index("Follow-up 2")
    assert "gathering the harbour&#x27;s tide readings" in page
    found = ids(page)
    assert len(found) == len(set(found)), "no id twice on the page"
    assert {"source-1", "turn-2-source-1", "turn-1", "turn-2"} <= set(found)
    assert 'href="#turn-2-source-1"' in page and 'href="#source-1"' in page
    first, second = page.split('id="turn-2"')
    assert first.count('class="cite"') >= 1 and second.count('class="cite"') >= 1


def test_the_follow_ups_events_begin_where_the_page_replays_from(
    ui: TestClient, thread: str
) -> None:
    log = ui.get(f"{thread}/log").json()
    started = [e for e in log if e["kind"] == "status" and e["status"] == "running"]
    assert [(e["turn"], e.get("question")) for e in started] == [(1, None), (2, SECOND)]
    page = ui.get(thread).text
    assert f'data-after="{started[1]["seq"] - 1}" data-turn="2"' in page


def test_exports_hold_the_whole_thread_or_one_turn(ui: TestClient, thread: str) -> None:
    whole = ui.get(f"{thread}/export.md")
    assert 'filename="how-do-tides-work.md"' in whole.headers["content-disposition"]
    one = ui.get(f"{thread}/export.md?turn=1").text
    two = ui.get(f"{thread}/export.md?turn=2")
    assert one != two.text and whole.text.count("## Sources") == 2
    assert whole.text == f"{one.rstrip()}\n\n---\n\n{two.text.rstrip()}\n"
    assert "who-is-gathering" in two.headers["content-disposition"]
    assert ui.get(f"{thread}/export.md?turn=3").status_code == 404
    html = ui.get(f"{thread}/export.html").text
    assert SECOND.replace("'", "&#x27;") in html and len(ids(html)) == len(set(ids(html)))
    trail = ui.get(f"{thread}/export.json?turn=2").json()
    assert [t["question"] for t in trail["turns"]] == [SECOND]
    assert trail["report"]["topic"] == SECOND


def test_history_lists_the_thread_once_and_finds_it_by_part_of_a_word(
    ui: TestClient, thread: str
) -> None:
    listed = ui.get("/runs").text
    assert listed.count(f'href="{thread}"') == 1 and "2 questions" in listed
    assert f">{FIRST}</a>" in listed
    for part in ("ather", "HARBOUR", "tide read", "ides wor"):
        assert f'href="{thread}"' in ui.get("/runs", params={"q": part}).text, part
    assert f'href="{thread}"' not in ui.get("/runs", params={"q": "lakes"}).text


def test_an_odd_turn_or_event_number_is_a_clear_answer_not_an_error(
    ui: TestClient, thread: str
) -> None:
    for odd in ("²", "1" * 5000, "-1", "x"):  # "²" is a digit to str.isdigit, not to int
        whole = ui.get(f"{thread}/export.md", params={"turn": odd})
        assert whole.status_code == 200 and whole.text.count("\n## Sources\n") == 2  # both
        assert ui.get(f"{thread}/events", params={"after": odd}).status_code == 200
    missing = ui.get(f"{thread}/export.md", params={"turn": "99"})
    assert missing.status_code == 404 and "This run has 2 questions, not 99." in missing.text


def test_a_follow_up_on_a_run_that_has_not_finished_is_refused_and_changes_nothing(
    ui: TestClient, rig: Rig
) -> None:
    from ponder.testing import ScriptedBackend

    assert isinstance(rig.backend, ScriptedBackend)
    rig.backend.delay = 0.3
    path = ui.post("/runs", data={"topic": FIRST, "mode": "loop"}).headers["location"]
    refused = ui.post(f"{path}/follow-up", data={"topic": SECOND})
    assert refused.status_code == 409 and "a follow-up builds on a finished run" in refused.text
    log = done(ui, path, 1)
    assert [e.get("turn", 1) for e in log if e["kind"] == "status"] == [1, 1], "no turn 2 begun"
