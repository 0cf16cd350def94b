"""Who may use `ponder ui` and what each user sees: the app in-process, through Starlette's
test client (a real HTTP client over ASGI), with the scripted model behind it."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ponder import research
from ponder.interfaces.cli import main
from ponder.interfaces.ui.app import create_app
from ponder.testing import Rig, ScriptedBackend

HOST, PORT = "127.0.0.1", 8765
BASE = f"http://{HOST}:{PORT}"


@pytest.fixture
def operator_env(rig: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PONDER_MODEL", "scripted")
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", rig.url)
    monkeypatch.setenv("PONDER_SEARCH", "local")
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(corpus))
    monkeypatch.setenv("PONDER_MAX_LOOPS", "1")
    return corpus


def client(host: str = HOST, **headers: str) -> TestClient:
    return TestClient(
        create_app(host, PORT), base_url=BASE, headers=headers, follow_redirects=False
    )


@pytest.fixture
def users(monkeypatch: pytest.MonkeyPatch, operator_env: Path) -> Iterator[dict[str, TestClient]]:
    monkeypatch.setenv("PONDER_UI_TOKEN", "op-secret")
    monkeypatch.setenv("PONDER_UI_TOKENS", "alice=alice-secret,bob=bob-secret")
    app = create_app("0.0.0.0", PORT)
    with TestClient(app, base_url=BASE, follow_redirects=False) as shared:
        yield {
            name: _as(shared, token)
            for name, token in (
                ("op", "op-secret"),
                ("alice", "alice-secret"),
                ("bob", "bob-secret"),
            )
        }


class _as:
    """One user's requests on the shared app (their token as a bearer)."""

    def __init__(self, shared: TestClient, token: str) -> None:
        self.shared, self.headers = shared, {"authorization": f"Bearer {token}"}

    def get(self, path: str, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.shared.get(path, headers={**self.headers, **(headers or {})}, **kw)

    def post(self, path: str, headers: dict[str, str] | None = None, **kw: Any) -> Any:
        return self.shared.post(path, headers={**self.headers, **(headers or {})}, **kw)


def finished(user: _as, thread_path: str, timeout: float = 30) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = user.get(f"{thread_path}/log").json()
        if log and log[-1]["kind"] == "status" and log[-1]["status"] != "running":
            return log  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError("the run did not finish")


def test_off_loopback_it_refuses_to_start_without_a_token(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["ui", "--host", "0.0.0.0", "--port", "8799"])
    assert code != 0
    said = capsys.readouterr().err
    assert "PONDER_UI_TOKEN" in said and "127.0.0.1" in said


@pytest.mark.parametrize(
    ("operator", "callers", "said"),
    [
        ("op-secret", "operator=x-secret,bob=bob-secret", "another name"),
        ("op-secret", "alice=op-secret", "same token"),
        ("", "alice=one-secret,bob=one-secret", "same token"),
    ],
)
def test_users_that_would_be_taken_for_others_are_refused_before_it_listens(
    operator: str,
    callers: str,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A user named "operator" would see the runs the operator starts (they are kept under
    that name); a token two users share would make one of them the other."""
    monkeypatch.setenv("PONDER_UI_TOKEN", operator)
    monkeypatch.setenv("PONDER_UI_TOKENS", callers)
    assert main(["ui", "--host", "0.0.0.0", "--port", "8799"]) != 0
    assert said in capsys.readouterr().err


def test_a_busy_port_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["ui", "--port", str(port)]) != 0
    assert "--port" in capsys.readouterr().err


def test_another_site_cannot_reach_it_through_dns_rebinding_or_a_form(operator_env: Path) -> None:
    with client() as ui:
        assert ui.get("/").status_code == 200
        assert ui.get("/", headers={"host": "evil.example:8765"}).status_code == 400
        attack = ui.post("/runs", data={"topic": "x"}, headers={"origin": "http://evil.example"})
        assert attack.status_code == 403
        page = ui.get("/")
        assert "default-src 'self'" in page.headers["content-security-policy"]


def test_with_tokens_set_a_request_without_one_is_refused_and_the_link_sets_a_cookie(
    users: dict[str, Any],
) -> None:
    shared = users["op"].shared
    assert shared.get("/").status_code == 401
    assert shared.get("/", headers={"authorization": "Bearer wrong"}).status_code == 401
    # The address `ponder ui` printed, opened by the person: a navigation of their own.
    link = shared.get("/?token=alice-secret", headers={"sec-fetch-site": "none"})
    assert link.status_code == 303 and link.headers["location"] == "/"
    cookie = link.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert shared.get("/", cookies={"ponder_ui": "alice-secret"}).status_code == 200


def test_a_link_from_another_site_signs_no_one_in(users: dict[str, Any]) -> None:
    """Login CSRF: bob sends alice a link with his token; opened from another site, it
    sets no cookie, and alice's own stays hers."""
    shared = users["op"].shared
    for site in ("cross-site", "same-site", "same-origin", None):  # a link in a report too
        headers = {"sec-fetch-site": site} if site else {}
        sent = shared.get("/?token=bob-secret", headers=headers)
        assert sent.status_code == 401 and "set-cookie" not in sent.headers, site
        hers = shared.get(
            "/?token=bob-secret", headers=headers, cookies={"ponder_ui": "alice-secret"}
        )
        assert hers.status_code == 200 and "set-cookie" not in hers.headers, site


def test_behind_a_proxy_the_address_people_use_may_send_forms(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_UI_ORIGINS", "https://research.example.org")
    with client() as ui:
        proxied = {"origin": "https://research.example.org"}
        asked = {"topic": "How do tides work?", "docs": str(operator_env), "mode": "loop"}
        started = ui.post("/runs", data=asked, headers=proxied)
        assert started.status_code == 303, started.text
        other = ui.post("/runs", data={"topic": "x"}, headers={"origin": "https://evil.example"})
        assert other.status_code == 403


def test_a_request_body_is_bounded_whatever_its_form(operator_env: Path) -> None:
    with client() as ui:
        big = "x" * (400 * 1024)
        assert ui.post("/runs", data={"topic": big}).status_code == 413
        chunks = (b"topic=" + b"x" * 65536 for _ in range(8))  # no Content-Length: chunked
        streamed = ui.post(
            "/runs", content=chunks, headers={"content-type": "application/x-www-form-urlencoded"}
        )
        assert streamed.status_code == 413
        assert ui.get("/").status_code == 200


def test_each_user_sees_only_their_own_runs_and_the_operator_sees_all(
    users: dict[str, Any], operator_env: Path
) -> None:
    alice, bob, op = users["alice"], users["bob"], users["op"]
    started = alice.post("/runs", data={"topic": "How do tides work?", "mode": "loop"})
    assert started.status_code == 303, started.text
    path = started.headers["location"]
    # 128 random bits after the start time: an address nobody can guess (or try in a day).
    assert re.fullmatch(r"/runs/\d{8}-\d{6}-[0-9a-f]{32}", path), path
    assert finished(alice, path)[-1]["status"] == "done"
    research("Why two tides a day?", model="scripted", docs=[str(operator_env)], max_loops=1)
    assert alice.get(path).status_code == 200
    assert "How do tides work?" in alice.get("/runs").text
    for denied in (path, f"{path}/log", f"{path}/export.json", f"{path}/events"):
        assert bob.get(denied).status_code == 404, denied
    assert bob.post(f"{path}/delete").status_code == 404
    assert "How do tides work?" not in bob.get("/runs").text
    assert "Why two tides a day?" not in alice.get("/runs").text, "a CLI run is the operator's"
    everything = op.get("/runs").text
    assert "How do tides work?" in everything and "Why two tides a day?" in everything


def test_a_caller_sets_only_what_the_operator_allows(
    users: dict[str, Any], operator_env: Path, tmp_path: Path
) -> None:
    alice = users["alice"]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    refused = alice.post("/runs", data={"topic": "Tides", "docs": str(outside), "search": "local"})
    assert refused.status_code == 400 and "refused" in refused.text
    other_model = alice.post("/runs", data={"topic": "Tides", "model": "llama3:70b"})
    assert other_model.status_code == 400 and "model" in other_model.text
    assert alice.get("/api/models").json()["models"] == ["scripted"]
    assert alice.post("/documents", data={"path": str(outside)}).status_code == 400
    (operator_env / ".private").mkdir()
    hidden = alice.post(
        "/runs", data={"topic": "Tides", "docs": str(operator_env / ".private"), "search": "local"}
    )
    assert hidden.status_code == 400 and "hidden file or folder" in hidden.text
    for raw in ("~nosuchuser/docs", "/srv/" + "x" * 5000):  # a message, not a server error
        bad = alice.post("/runs", data={"topic": "Tides", "docs": raw, "search": "local"})
        assert bad.status_code == 400 and "refused" in bad.text
        assert alice.post("/documents", data={"path": raw}).status_code == 400
        assert users["op"].post("/documents", data={"path": raw}).status_code == 400


def test_a_model_not_pulled_and_a_folder_without_documents_say_what_to_do(
    operator_env: Path, tmp_path: Path
) -> None:
    with client() as ui:
        asked = {"topic": "How do tides work?", "mode": "loop", "search": "local"}
        missing = ui.post("/runs", data={**asked, "model": "gemma3:27b"})
        assert missing.status_code == 400
        assert "ollama pull gemma3:27b" in missing.text
        assert "How do tides work?</textarea>" in missing.text, "the question is kept"
        empty = tmp_path / "empty"
        empty.mkdir()
        nothing = ui.post("/runs", data={**asked, "docs": str(empty)})
        assert nothing.status_code == 400 and "No documents found in" in nothing.text


def test_a_search_backend_that_cannot_be_reached_says_so_at_once_and_what_to_check(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support import closed_address

    with closed_address() as closed, client() as ui:
        monkeypatch.setenv("PONDER_SEARXNG_URL", closed)
        started = ui.post("/runs", data={"topic": "How do tides work?", "search": "searxng"})
        assert started.status_code == 303, started.text
        path = started.headers["location"]
        log = finished(ui, path)  # type: ignore[arg-type]
        ended = log[-1]
        assert ended["status"] == "failed", log
        assert closed in ended["message"] and "check searxng_url" in ended["message"]
        assert not [e for e in log if e["kind"] == "node_start" and e["node"] != "take_question"]
        page = ui.get(path).text
        said = re.search(r'<p class="error" role="alert" id="message">(.*?)</p>', page, re.S)
        assert said is not None and "check searxng_url" in said.group(1)
        assert "--docs" not in said.group(1) and "Documents page" in said.group(1), said.group(1)


def test_a_callers_rounds_are_held_to_the_operators_ceiling_and_the_operators_are_not(
    users: dict[str, Any], operator_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_CALLER_MAX_LOOPS", "2")
    alice, op = users["alice"], users["op"]
    assert 'max="2"' in alice.get("/").text and 'max="20"' in op.get("/").text
    above = alice.post("/runs", data={"topic": "Tides", "mode": "loop", "max_loops": "3"})
    assert above.status_code == 400
    assert "max_loops=3 is above this server&#x27;s ceiling of 2" in above.text
    assert "PONDER_CALLER_MAX_LOOPS" in above.text
    three = {"topic": "Tides", "mode": "loop", "max_loops": "3", "docs": str(operator_env)}
    mine = op.post("/runs", data=three)
    assert mine.status_code == 303, mine.text
    assert finished(op, mine.headers["location"])[-1]["status"] == "done"


def test_a_caller_with_as_many_live_runs_as_allowed_is_refused_until_one_ends(
    users: dict[str, Any], scripted: ScriptedBackend, operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("PONDER_CALLER_RUNS", "1")
    scripted.delay = 0.3  # each run stays live for a few seconds
    alice, bob, op = users["alice"], users["bob"], users["op"]
    ask = {"topic": "How do tides work?", "mode": "loop", "docs": str(operator_env)}
    first = alice.post("/runs", data=ask)
    assert first.status_code == 303, first.text
    path = first.headers["location"]
    again = alice.post("/runs", data={**ask, "topic": "Why two tides a day?"})
    assert again.status_code == 429
    assert "You already have 1 run running or queued here" in again.text
    assert "PONDER_CALLER_RUNS=1" in again.text
    assert "Why two tides a day?</textarea>" in again.text, "the question is kept"
    others = [bob.post("/runs", data=ask), op.post("/runs", data=ask), op.post("/runs", data=ask)]
    assert [r.status_code for r in others] == [303, 303, 303]  # bob's own; the operator's any
    assert finished(alice, path)[-1]["status"] == "done"
    second = alice.post("/runs", data=ask)  # the first ended: room for one again
    assert second.status_code == 303, second.text
    follow_up = alice.post(f"{path}/follow-up", data={"topic": "And in lakes?"})
    assert follow_up.status_code == 429 and "PONDER_CALLER_RUNS=1" in follow_up.text
    for user, started in ((alice, second), *zip((bob, op, op), others, strict=True)):
        finished(user, started.headers["location"])


def test_a_caller_is_shown_no_host_endpoint_or_file_of_the_operator(
    users: dict[str, Any], rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support import free_port

    closed = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("PONDER_SEARXNG_URL", closed)
    monkeypatch.setenv("PONDER_CALLER_SEARCHES", "local,searxng")
    alice, op = users["alice"], users["op"]
    asked = {"topic": "How do tides work?", "mode": "loop", "search": "searxng"}
    started = alice.post("/runs", data=asked)
    assert started.status_code == 303, started.text
    path = started.headers["location"]
    log = finished(alice, path)
    warnings = [e["data"]["message"] for e in log if e["kind"] == "warning"]
    assert any("[searxng_url]" in w for w in warnings), warnings
    [done] = [e for e in log if e.get("status") == "done"]
    assert list(done["stats"]["host_calls"]) == ["ollama host 1"]
    exported = alice.get(f"{path}/export.json").json()
    assert "ollama_base_url" not in exported["config"] and exported["config"]["search"]
    for page in (f"{path}/log", f"{path}/export.json", f"{path}/export.md", path):
        shown = alice.get(page).text
        assert closed not in shown and rig.url not in shown, page
    assert closed in op.get(f"{path}/log").text  # the operator reads it as it was written
    # The model server down: a caller is told so, not where it is.
    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", down)
    said = alice.get("/api/models").json()["error"]
    assert said and "[ollama host 1]" in said and down not in said
    assert down in op.get("/api/models").json()["error"]


def test_index_jobs_are_limited_per_user_and_in_all_and_the_server_answers_meanwhile(
    users: dict[str, Any], operator_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of "index this folder" cannot take the threads other requests need."""
    import threading

    from ponder.interfaces.ui import folders

    release = threading.Event()
    real = folders.documents.index

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)  # a folder that takes long to read
        return real(*args, **kwargs)

    monkeypatch.setattr(folders.documents, "index", held)
    json = {"accept": "application/json"}
    alice, bob, op = users["alice"], users["bob"], users["op"]
    folder = str(operator_env)
    try:
        first = alice.post("/documents", data={"path": folder}, headers=json)
        assert first.status_code == 200, first.text
        again = alice.post("/documents", data={"path": folder}, headers=json)
        assert again.status_code == 429 and "being indexed already" in again.json()["error"]
        assert bob.post("/documents", data={"path": folder}, headers=json).status_code == 200
        full = op.post("/documents", data={"path": folder}, headers=json)
        assert full.status_code == 429 and "2 folders" in full.json()["error"]
        assert alice.get("/api/models").status_code == 200  # the server answers meanwhile
    finally:
        release.set()
    job = first.json()["job"]
    deadline = time.monotonic() + 30
    while not alice.get(f"/documents/jobs/{job}").json()["finished"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert alice.post("/documents", data={"path": folder}, headers=json).status_code == 200


def test_a_search_that_cannot_work_here_is_shown_with_why_not_offered(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with client() as page:
        ask = page.get("/").text
    tavily = re.search(
        r'<label class="choice[^"]*">[^<]*<input[^>]*value="tavily"[^>]*>.*?</label>', ask
    )
    assert tavily is not None, "the operator sees every backend"
    assert "disabled" in tavily.group(0) and "TAVILY_API_KEY" in tavily.group(0)
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    with client() as page:
        ask = page.get("/").text
    tavily = re.search(r'<input[^>]*value="tavily"[^>]*>', ask)
    assert tavily is not None and "disabled" not in tavily.group(0)
