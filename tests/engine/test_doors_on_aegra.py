"""ponder's doors as clients of one engine (two Aegra replicas on one PostgreSQL and one Redis,
ponder's own langgraph.json): two `ponder ui` and two `ponder mcp --http`, each talking to its
own replica. In a real browser, a run started through one UI is watched, stopped, resumed and
deleted through the other, a follow-up asked there becomes its next turn, and its
clarifying question is answered there; through the
official MCP client, a run started on one MCP server is another door's run too. A caller's
limit of one live run holds across all of them, and another user sees none of it. No door
keeps a run of its own: the engine holds them all.

Run by ``make test-engine`` (Aegra needs Python 3.12: its own virtual environment).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from support import UiServer, ask_once, serve_mcp_http, write_corpus
from support.aegra import aegra_replicas, engine_venv, redis_server
from support.langgraph_dev import TOKENS

from ponder.testing import Rig, ScriptedBackend

OUTPUT = Path(__file__).resolve().parents[2] / "test-output"
WAIT = 30_000  # ms
AS_ALICE = {"Authorization": f"Bearer {TOKENS['alice']}"}
SLOW_CALLS = 0.6  # s per scripted model call: a run lasts long enough to watch and stop


class Team:
    def __init__(self, a: UiServer, b: UiServer, mcp: list[str], scripted: ScriptedBackend) -> None:
        self.a, self.b, self.scripted = a, b, scripted
        self.mcp_a, self.mcp_b = mcp  # each MCP server's address


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    import pgserver

    folder = tmp_path_factory.mktemp("aegra-ui")
    venv = engine_venv()
    docs = write_corpus(folder / "operator-docs")
    postgres = pgserver.get_server(tmp_path_factory.mktemp("pgdata-ui"), cleanup_mode="stop")
    scripted = ScriptedBackend(delay=SLOW_CALLS)
    tokens = ",".join(f"{user}={token}" for user, token in TOKENS.items())
    operator = {  # the team's one set of operator settings: the engine's and the UIs'
        "PONDER_MODEL": "scripted",
        "PONDER_DOCS": str(docs),
        "PONDER_CALLER_SEARCHES": "local",
        "PONDER_SEARCH": "local",
        "PONDER_SERVER_TOKENS": tokens,
        "PONDER_CALLER_RUNS": "1",
    }
    try:
        with (
            redis_server(folder / "redis", venv) as redis_url,
            Rig(scripted, models=("scripted",)) as rig,
        ):
            engine = {
                **operator,
                "OLLAMA_HOST": rig.url,
                "PONDER_DATA_DIR": str(folder / "engine-data"),
                "PONDER_CACHE_DIR": str(folder / "engine-cache"),
            }
            url = str(postgres.get_uri())
            with aegra_replicas(folder, url, redis_url, engine) as (one, two):
                uis = [
                    UiServer(
                        {
                            **operator,
                            "PONDER_OLLAMA_BASE_URL": rig.url,
                            "PONDER_SERVER": replica.url,
                            "PONDER_UI_TOKENS": tokens,  # a browser signs in as on the engine
                            "PONDER_DATA_DIR": str(folder / f"ui-{name}"),
                            "PONDER_CACHE_DIR": str(folder / f"ui-{name}-cache"),
                        }
                    ).start()
                    for name, replica in (("a", one), ("b", two))
                ]
                mcps = [
                    serve_mcp_http(
                        {
                            **{k: v for k, v in os.environ.items() if not k.startswith("PONDER_")},
                            **operator,
                            "OLLAMA_HOST": rig.url,
                            "PONDER_SERVER": replica.url,
                            "PONDER_MCP_TOKENS": tokens,  # a client is the same user there
                            "PONDER_DATA_DIR": str(folder / f"mcp-{name}"),
                            "PONDER_CACHE_DIR": str(folder / f"mcp-{name}-cache"),
                        },
                        "127.0.0.1",
                    )
                    for name, replica in (("a", one), ("b", two))
                ]
                try:
                    addresses = [f"http://127.0.0.1:{port}/mcp" for _, port in mcps]
                    yield Team(uis[0], uis[1], addresses, scripted)
                finally:
                    codes = [ui.stop() for ui in uis]
                    for process, _ in mcps:
                        process.send_signal(signal.SIGINT)  # Ctrl-C: shut down, then exit 0
                        codes.append(process.wait(timeout=20))
                    assert codes == [0, 0, 0, 0], "each door exits cleanly on Ctrl-C"
    finally:
        postgres.cleanup()


class Tab:
    """A signed-in browser tab on one UI."""

    def __init__(self, browser: Any, ui: UiServer, user: str) -> None:
        self.ui = ui
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.page.goto(f"{ui.url}/?token={TOKENS[user]}")  # the address its operator gave

    def go(self, path: str) -> Any:
        response = self.page.goto(self.ui.url + path)
        return response

    def shot(self, name: str) -> None:
        OUTPUT.mkdir(exist_ok=True)
        self.page.screenshot(path=str(OUTPUT / f"ui-engine-{name}.png"), full_page=True)

    def ask(self, question: str) -> Any:
        self.go("/")
        self.page.fill("#topic", question)
        self.page.check("input[name=mode][value=loop]")
        self.page.click("form.ask button[type=submit]")
        return self.page

    def status(self, status: str, wait: int = WAIT) -> None:
        try:
            self.page.wait_for_selector(f"#status.status-{status}", timeout=wait)
        except Exception:
            self.shot(f"not-{status}")
            print(self.page.url, self.page.locator("body").inner_text()[:2000])
            raise


def test_a_run_started_on_one_ui_is_watched_stopped_resumed_and_deleted_on_the_other(
    team: Team, browser: Any
) -> None:
    on_a, on_b = Tab(browser, team.a, "alice"), Tab(browser, team.b, "alice")
    page = on_a.ask("How do the tides of the sea work?")
    page.wait_for_url("**/runs/*")
    run = urlsplit(page.url).path
    on_a.status("running")

    # Watched from the other UI: its live view is the engine's stream.
    on_b.go(run)
    on_b.status("running")
    on_b.page.wait_for_selector("#timeline li.round", timeout=WAIT)
    on_b.shot("watched")

    # One live run of alice's at a time, across both UIs (the engine counts).
    form = {"topic": "What makes the moon's pull uneven?", "mode": "loop"}
    assert httpx.post(f"{team.b.url}/runs", headers=AS_ALICE, data=form).status_code == 429
    refused = on_b.ask("What makes the moon's pull uneven?")
    assert "/runs/" not in refused.url
    assert "already have 1 run" in refused.locator("[role=alert]").first.inner_text()

    # Stopped from the other UI: the engine cancels it, and the first UI's view says so.
    on_b.go(run)
    on_b.page.click("form[data-action=stop] button")
    on_b.status("interrupted")
    on_a.status("interrupted")
    on_a.shot("stopped-elsewhere")

    # Resumed on A, finished on the engine: B reads the same report.
    on_a.page.click("form[data-action=resume] button")
    on_a.status("done")
    on_b.go(run)
    on_b.status("done")
    assert on_b.page.locator("#report a.cite").count() > 0
    cited = on_a.page.locator("#report .cited").count()
    assert cited and on_b.page.locator("#report .cited").count() == cited
    on_b.shot("done")

    # A follow-up asked on B is the thread's next turn, on the engine: A shows both turns.
    on_b.page.fill("#follow-up", "Which harbours close at low tide?")
    on_b.page.click("#follow button[type=submit]")
    on_b.page.wait_for_url(f"**{run}#turn-2")
    on_b.status("done")
    on_a.go(run)
    on_a.status("done")
    assert on_a.page.locator("section.turn").count() == 2
    assert (
        "Which harbours close at low tide?" in on_a.page.locator("#turn-2 .question").inner_text()
    )
    assert on_a.page.locator("#turn-1 article.report a.cite").count() > 0
    assert on_a.page.locator("#turn-2 #report a.cite").count() > 0
    on_a.shot("follow-up-elsewhere")
    trail = httpx.get(f"{team.a.url}{run}/export.json", headers=AS_ALICE).json()
    assert [t["question"] for t in trail["turns"]] == [
        "How do the tides of the sea work?", "Which harbours close at low tide?"
    ]  # fmt: skip
    calls = [t["report"]["stats"]["llm_calls"] for t in trail["turns"]]
    live = [e for e in httpx.get(f"{team.a.url}{run}/log", headers=AS_ALICE).json()
            if e.get("status") == "done"]  # fmt: skip
    assert live[-1]["stats"]["llm_calls"] == calls[1] > 0, "each turn's cost is its own"

    # A tab that reconnects to the other UI with Last-Event-ID gets the rest, from the engine.
    whole = httpx.get(f"{team.a.url}{run}/log", headers=AS_ALICE).json()
    half = len(whole) // 2
    again = {**AS_ALICE, "Last-Event-ID": str(half)}
    with httpx.stream("GET", f"{team.b.url}{run}/events", headers=again, timeout=60) as events:
        ids = [int(line[3:]) for line in events.iter_lines() if line.startswith("id:")]
    assert ids == [entry["seq"] for entry in whole[half:]] and len(whole) > 10

    # The history of either UI finds it by part of a word; deleted on B, gone from A.
    on_a.go("/runs?q=tide")
    assert on_a.page.locator(f"a[href='{run}']").count() == 1
    on_b.go(run)
    on_b.page.on("dialog", lambda dialog: dialog.accept())
    on_b.page.click("form[data-action=delete] button")
    on_b.page.wait_for_url("**/runs")
    assert on_a.go(run).status == 404
    on_a.go("/runs")
    assert on_a.page.locator(f"a[href='{run}']").count() == 0

    # And the limit's place is free again, on either UI.
    again = on_a.ask("What makes the moon's pull uneven?")
    again.wait_for_url("**/runs/*")
    on_a.page.click("form[data-action=stop] button")
    on_a.status("interrupted")
    for tab in (on_a, on_b):
        tab.context.close()


def test_a_question_asked_through_one_ui_is_answered_through_the_other(
    team: Team, browser: Any
) -> None:
    team.scripted.delay = 0.05  # a deep run makes many calls: quick ones here
    ask_once(team.scripted)
    on_a, on_b = Tab(browser, team.a, "alice"), Tab(browser, team.b, "alice")
    try:
        on_a.go("/")
        on_a.page.fill("#topic", "Tides and harbours")
        on_a.page.check("input[name=mode][value=deep]")
        on_a.page.click("form.ask button[type=submit]")
        on_a.page.wait_for_url("**/runs/*")
        run = urlsplit(on_a.page.url).path
        on_a.status("waiting", WAIT * 2)  # Aegra ends a run paused on a question as "interrupted"
        assert on_a.page.locator("#question").inner_text() == "Which coast do you mean?"
        on_b.go(run)
        on_b.status("waiting")
        on_b.page.fill("#answer", "The Atlantic coast")
        on_b.page.click("#clarify button[type=submit]")
        on_b.status("done")
        on_a.go(run)  # a tab that showed the question ended its stream there: it reloads
        on_a.status("done")
        assert on_a.page.locator("#report a.cite").count() > 0
        on_a.shot("answered-elsewhere")
    finally:
        team.scripted.delay = SLOW_CALLS
        team.scripted.overrides.pop("Clarification", None)
        for tab in (on_a, on_b):
            tab.context.close()


def test_another_user_sees_nothing_of_alice_s_runs_on_either_ui(team: Team, browser: Any) -> None:
    alice = Tab(browser, team.a, "alice")
    page = alice.ask("How deep is the ocean floor near the shore?")
    page.wait_for_url("**/runs/*")
    run = urlsplit(page.url).path
    alice.page.click("form[data-action=stop] button")
    alice.status("interrupted")
    for ui in (team.a, team.b):
        bob = Tab(browser, ui, "bob")
        assert bob.go(run).status == 404
        bob.go("/runs")
        assert bob.page.locator(f"a[href='{run}']").count() == 0
        as_bob = {"Authorization": f"Bearer {TOKENS['bob']}"}
        answer = httpx.get(f"{ui.url}{run}/log", headers=as_bob)
        assert answer.status_code == 404
        bob.context.close()
    alice.context.close()


def test_the_documents_page_says_where_documents_are(team: Team) -> None:
    answer = httpx.get(
        f"{team.b.url}/documents", headers={"Authorization": f"Bearer {TOKENS['alice']}"}
    )
    assert answer.status_code == 404 and "indexed where the engine runs" in answer.text


@asynccontextmanager
async def mcp_client(address: str, user: str) -> AsyncIterator[Any]:
    """The official MCP client, signed in as ``user``."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKENS[user]}"})
    async with http, Client(streamable_http_client(address, http_client=http)) as client:
        yield client


RESEARCH = {"mode": "loop", "max_loops": 1}


def test_a_run_started_through_mcp_is_every_door_s_and_the_limit_holds_across_them(
    team: Team,
) -> None:
    # Its own loop, beside the one the browser tests' Playwright keeps running.
    with ThreadPoolExecutor(max_workers=1) as worker:
        worker.submit(asyncio.run, _mcp_doors(team)).result()


async def _mcp_doors(team: Team) -> None:
    question = "Why do harbour pilots read tide tables?"
    async with mcp_client(team.mcp_a, "alice") as on_a, mcp_client(team.mcp_b, "alice") as on_b:
        longer = {"question": question, "mode": "loop", "max_loops": 3}  # some seconds long
        first = asyncio.create_task(on_a.call_tool("research", longer))
        await asyncio.sleep(1.5)  # the engine is running it
        refused = await on_b.call_tool("research", {"question": "And the moon?", **RESEARCH})
        done = await first
    assert refused.is_error and "already have 1 run" in refused.content[0].text
    assert not done.is_error, done.content[0].text
    run_id = (done.structured_content or {})["run_id"]
    assert not run_id.startswith("mcp-"), "the engine's thread, not this process's run"

    # The same run, through the other kind of door: alice's UI lists and shows it.
    as_alice = {"Authorization": f"Bearer {TOKENS['alice']}"}
    listed = httpx.get(f"{team.b.url}/runs?q=pilot", headers=as_alice)
    assert f"/runs/{run_id}" in listed.text
    trail = httpx.get(f"{team.b.url}/runs/{run_id}/export.json", headers=as_alice).json()
    assert trail["status"] == "done" and trail["report"]["markdown"] == done.content[0].text
    replayed = httpx.get(f"{team.b.url}/runs/{run_id}/log", headers=as_alice).json()
    kinds = {event["kind"] for event in replayed}
    assert {"round_start", "source", "token"} <= kinds, "its page replays how it was researched"

    # Bob cannot resume it through either MCP server: to him it does not exist.
    for address in (team.mcp_a, team.mcp_b):
        async with mcp_client(address, "bob") as bob:
            theirs = await bob.call_tool("resume", {"run_id": run_id})
        assert theirs.is_error and "No run" in theirs.content[0].text
