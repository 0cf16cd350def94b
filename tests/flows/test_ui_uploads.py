"""Uploads in `ponder ui`: each user's own collection, which only they can list, delete and
search, held to the operator's limits (size, count, type, total) — the app in-process
through Starlette's test client, with the scripted model behind it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ponder.interfaces.ui import collection
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.app import create_app
from ponder.testing import Rig

BASE = "http://127.0.0.1:8765"
JSON = {"accept": "application/json"}
NOTES = (
    b"# Lighthouse keepers\n\nLighthouse keepers trimmed the lamp's wicks every four hours "
    b"through the night and wound the clockwork that turned the lens.\n"
)
QUESTION = "How did lighthouse keepers keep the lamp burning?"


@pytest.fixture
def shared(
    rig: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, Any]]:
    monkeypatch.setenv("PONDER_MODEL", "scripted")
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", rig.url)
    monkeypatch.setenv("PONDER_SEARCH", "local")
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(corpus))
    monkeypatch.setenv("PONDER_MAX_LOOPS", "1")
    monkeypatch.setenv("PONDER_UI_TOKEN", "op-secret")
    monkeypatch.setenv("PONDER_UI_TOKENS", "alice=alice-secret,bob=bob-secret")
    app = create_app("0.0.0.0", 8765)
    with TestClient(app, base_url=BASE, follow_redirects=False) as client:
        yield client, app


class As:
    """One user's requests (their token as a bearer)."""

    def __init__(self, client: TestClient, token: str) -> None:
        self.client, self.auth = client, {"authorization": f"Bearer {token}"}

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, headers={**self.auth, **kw.pop("headers", {})}, **kw)

    def post(self, path: str, **kw: Any) -> Any:
        return self.client.post(path, headers={**self.auth, **kw.pop("headers", {})}, **kw)

    def upload(self, *files: tuple[str, bytes], json: bool = True, **kw: Any) -> Any:
        parts = [("file", (name, data)) for name, data in files]
        return self.post("/documents/uploads", files=parts, headers=JSON if json else {}, **kw)

    def indexed(self, answer: Any) -> None:
        job = answer.json()["job"]
        deadline = time.monotonic() + 30
        while not self.get(f"/documents/jobs/{job}").json()["finished"]:
            assert time.monotonic() < deadline, "indexing did not end"
            time.sleep(0.05)

    def run(self, asked: dict[str, str]) -> str:
        started = self.post("/runs", data={"topic": QUESTION, "mode": "loop", **asked})
        assert started.status_code == 303, started.text
        path = str(started.headers["location"])
        deadline = time.monotonic() + 30
        while True:
            log = self.get(f"{path}/log").json()
            if log and log[-1]["kind"] == "status" and log[-1]["status"] != "running":
                assert log[-1]["status"] == "done", log[-1]
                return str(self.get(f"{path}/export.md").text)
            assert time.monotonic() < deadline, "the run did not finish"
            time.sleep(0.1)


def folder(name: str) -> Path:
    return collection.folder_of(User(name, name == "operator"))


def kept(name: str) -> list[str]:
    """Every entry of the user's folder, hidden ones too: nothing half-written is left."""
    where = folder(name)
    return sorted(p.name for p in where.iterdir()) if where.exists() else []


def test_only_the_uploader_lists_deletes_and_searches_their_files(
    shared: tuple[TestClient, Any],
) -> None:
    client, _app = shared
    alice, bob = As(client, "alice-secret"), As(client, "bob-secret")
    answer = alice.upload(("lighthouses.md", NOTES), ("keepers log.txt", b"Wicks and oil.\n"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["files"] == ["lighthouses.md", "keepers log.txt"]
    alice.indexed(answer)
    page = alice.get("/documents").text
    assert "lighthouses.md" in page and "keepers log.txt" in page
    assert "<td>indexed</td>" in page
    assert 'name="uploads" value="1" checked> Your uploads (2 files)' in alice.get("/").text

    # Bob sees none of it, cannot delete it, and cannot name her folder in a run.
    assert "lighthouses.md" not in bob.get("/documents").text
    assert "Your uploads (" not in bob.get("/").text
    denied = bob.post("/documents/uploads/delete", data={"name": "lighthouses.md"})
    assert denied.status_code == 404 and "lighthouses.md" in kept("alice")
    theirs = bob.post(
        "/runs", data={"topic": QUESTION, "docs": str(folder("alice")), "search": "local"}
    )
    assert theirs.status_code == 400 and "outside this server" in theirs.text

    # Her run searches her uploads; his, asked the same, does not find them.
    assert "lighthouses.md" in alice.run({"uploads": "1", "search": "local"})
    assert "lighthouses.md" not in bob.run({"uploads": "1", "search": "local"})

    deleted = alice.post("/documents/uploads/delete", data={"name": "lighthouses.md"})
    assert deleted.status_code == 303
    assert kept("alice") == ["keepers log.txt"]
    assert "lighthouses.md" not in alice.run({"uploads": "1", "search": "local"})
    missing = alice.post("/documents/uploads/delete", data={"name": "../lighthouses.md"})
    assert missing.status_code == 404


def test_each_limit_refuses_with_the_limit_named_and_leaves_nothing_behind(
    shared: tuple[TestClient, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _app = shared
    alice = As(client, "alice-secret")
    monkeypatch.setenv("PONDER_UI_UPLOAD_FILE_MB", "1")
    monkeypatch.setenv("PONDER_UI_UPLOAD_FILES", "3")
    monkeypatch.setenv("PONDER_UI_UPLOAD_TOTAL_MB", "2")
    big = b"x" * 1_200_000

    over = alice.upload(("report.txt", big))
    assert over.status_code == 413
    assert over.json()["error"] == ("report.txt is over 1 MB; this server takes files up to 1 MB.")
    as_page = alice.upload(("report.txt", big), json=False)  # the form without script
    assert as_page.status_code == 413 and "report.txt is over 1 MB" in as_page.text
    assert "<h1>Documents</h1>" in as_page.text

    kind = alice.upload(("tool.exe", b"MZ"))
    assert kind.status_code == 415 and ".docx" in kind.json()["error"]
    assert "tool.exe is not a type ponder reads" in kind.json()["error"]
    empty = alice.upload(("empty.md", b""))
    assert empty.status_code == 400 and "empty.md is empty" in empty.json()["error"]
    none = alice.post("/documents/uploads", files=[("file", ("", b""))], headers=JSON)
    assert none.status_code == 400 and "Choose a file" in none.json()["error"]
    assert kept("alice") == []

    # One file of a form refused: the whole form is, the files before it too.
    mixed = alice.upload(("fine.md", b"# Fine\n"), ("report.txt", big))
    assert mixed.status_code == 413 and kept("alice") == []

    half = b"y" * 700_000
    assert alice.upload(("one.txt", half), ("two.txt", half)).status_code == 200
    # Past the total: refused from its Content-Length before it is read...
    total = alice.upload(("three.txt", half))
    assert total.status_code == 413
    assert "may hold 2 MB in all on this server" in total.json()["error"]
    # ...and, sent with no length (chunked), as soon as it grows past it.
    body, kind_header = _form([("three.txt", half)])
    chunked = alice.post(
        "/documents/uploads",
        content=(body[i : i + 65536] for i in range(0, len(body), 65536)),
        headers={**JSON, "content-type": kind_header},
    )
    assert chunked.status_code == 413
    assert "three.txt does not fit" in chunked.json()["error"], chunked.text
    assert kept("alice") == ["one.txt", "two.txt"]

    assert alice.upload(("note.md", b"# A note\n")).status_code == 200
    count = alice.upload(("more.md", b"# More\n"))
    assert count.status_code == 409
    assert "this server keeps up to 3 per person" in count.json()["error"]
    assert kept("alice") == ["note.md", "one.txt", "two.txt"]


def _form(files: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "ponder-test-boundary"
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
        for name, data in files
    )
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_names_are_cleaned_and_a_name_taken_gets_a_number(
    shared: tuple[TestClient, Any],
) -> None:
    client, _app = shared
    alice = As(client, "alice-secret")
    sent = [
        ("../../../etc/cron.d/evil.md", b"1"),
        ("..\\..\\windows\\boot.md", b"2"),
        (".hidden.md", b"3"),
        ("notes.md", b"4"),
        ("notes.md", b"5"),
        ("tab\there\x07.md", b"6"),  # sent raw: httpx, like browsers, would escape them
    ]
    body, kind = _form(sent)
    answer = alice.post("/documents/uploads", content=body, headers={**JSON, "content-type": kind})
    assert answer.status_code == 200, answer.text
    names = answer.json()["files"]
    assert names == ["evil.md", "boot.md", "hidden.md", "notes.md", "notes (2).md", "tab here.md"]
    assert kept("alice") == sorted(names)
    assert (folder("alice") / "notes (2).md").read_bytes() == b"5"
    assert folder("alice").parent.name == "uploads" and folder("alice").name.startswith("alice-")
    again = alice.upload(("notes.md", b"7"))
    assert again.json()["files"] == ["notes (3).md"]
    for hopeless in ("...", "/", " . "):
        refused = alice.upload((hopeless, b"x"))
        assert refused.status_code == 400, hopeless


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("a\x00b.md", "ab.md"),
        ("C:\\Users\\me\\paper.pdf", "paper.pdf"),
        ("..", ""),
        ("  report .docx ", "report .docx"),
        ("x" * 300 + ".docx", "x" * 145 + ".docx"),
        ("é" * 100 + ".md", "é" * 73 + ".md"),
        ("e\u0301t\u00e9.md", "été.md"),
        ("right\u202eto-left.md", "rightto-left.md"),
    ],
)
def test_clean_name(raw: str, clean: str) -> None:
    assert collection.clean_name(raw) == clean
    assert len(collection.clean_name(raw).encode()) <= collection.LONGEST_NAME


def test_uploads_keep_the_rest_of_the_uis_rules(
    shared: tuple[TestClient, Any], monkeypatch: pytest.MonkeyPatch, corpus: Path
) -> None:
    client, app = shared
    alice = As(client, "alice-secret")
    parts = [("file", ("notes.md", NOTES))]
    no_token = client.post("/documents/uploads", files=parts)
    assert no_token.status_code == 401
    other_site = alice.post(
        "/documents/uploads", files=parts, headers={"origin": "http://evil.example"}
    )
    assert other_site.status_code == 403
    app_state = app.app.app.state  # behind the access checks and the headers
    app_state.uploading.add("alice")  # an upload of hers under way
    try:
        busy = alice.upload(("notes.md", NOTES))
        assert busy.status_code == 409 and "under way" in busy.json()["error"]
    finally:
        app_state.uploading.discard("alice")
    assert kept("alice") == []
    monkeypatch.setenv("PONDER_UI_UPLOAD_FILES", "0")
    off = alice.upload(("notes.md", NOTES))
    assert off.status_code == 403 and "Uploads are off" in off.json()["error"]
    assert "Uploads are off" in alice.get("/documents").text
    # A document folder that holds the uploads would give every user everyone's files.
    monkeypatch.setenv("PONDER_UI_UPLOAD_FILES", "10")
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(folder("alice").parents[2]))
    overlap = alice.upload(("notes.md", NOTES))
    assert overlap.status_code == 403 and "overlap" in overlap.json()["error"]
    assert kept("alice") == []


def test_on_their_own_machine_the_operator_uploads_and_researches_them(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loopback with no token: the person at the machine, with no document folder set."""
    monkeypatch.setenv("PONDER_MODEL", "scripted")
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", rig.url)
    monkeypatch.setenv("PONDER_MAX_LOOPS", "1")
    with TestClient(create_app("127.0.0.1", 8765), base_url=BASE, follow_redirects=False) as ui:
        me = As(ui, "")
        me.auth = {}
        answer = me.upload(("lighthouses.md", NOTES))
        assert answer.status_code == 200, answer.text
        me.indexed(answer)
        assert "Your uploads (1 files)" in me.get("/").text
        assert "lighthouses.md" in me.run({"uploads": "1", "search": "local"})


def test_the_upload_size_setting_stays_within_what_indexing_reads() -> None:
    from ponder.api import documents
    from ponder.settings.machine import Machine

    most = Machine.model_fields["ui_upload_file_mb"].metadata
    ceiling = next(m.le for m in most if hasattr(m, "le"))
    assert ceiling * collection.MB <= documents.largest_readable()


async def test_an_upload_cut_off_mid_way_leaves_nothing(
    shared: tuple[TestClient, Any],
) -> None:
    """The client goes away half-way through a file: what was written of it is removed."""
    _client, app = shared
    body, kind = _form([("notes.md", b"z" * 300_000)])
    pieces = [body[:150_000], body[150_000:200_000]]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if pieces:
            return {"type": "http.request", "body": pieces.pop(0), "more_body": True}
        assert "notes.md" not in kept("alice")
        assert any(name.startswith(collection.INCOMING) for name in kept("alice"))
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [
        (b"host", b"127.0.0.1:8765"),
        (b"authorization", b"Bearer alice-secret"),
        (b"content-type", kind.encode()),
        (b"accept", b"application/json"),
    ]
    scope = {
        "type": "http", "method": "POST", "path": "/documents/uploads", "raw_path": b"",
        "query_string": b"", "headers": headers, "scheme": "http", "http_version": "1.1",
        "server": ("127.0.0.1", 8765), "client": ("127.0.0.1", 5000), "root_path": "",
    }  # fmt: skip
    await app(scope, receive, send)
    assert sent[0]["status"] == 400
    assert kept("alice") == []


def test_a_body_of_empty_file_inputs_is_bounded_too(tmp_path: Path) -> None:
    """A form sent without Content-Length, of parts with no file name (an empty file input,
    whose bytes are no file's): refused once past the room left and the form's slack."""
    from ponder.interfaces.ui.receiving import FORM_SLACK, Receiver, UploadRefused

    limits = collection.Limits(1000, 10, 2000, (".txt",))
    receiver = Receiver(b"b", tmp_path, [], limits)
    empty = b'--b\r\nContent-Disposition: form-data; name="f"; filename=""\r\n\r\n'
    part = empty + b"x" * 65536 + b"\r\n"
    fed = 0
    with pytest.raises(UploadRefused) as refused:
        for _ in range(100):  # 6.5 MB of nothing
            receiver.feed(part)
            fed += len(part)
    assert refused.value.status == 413
    assert fed <= limits.total_bytes + FORM_SLACK
    receiver.discard()
    assert list(tmp_path.iterdir()) == []
