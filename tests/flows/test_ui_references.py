"""A user's own ZIM archives and reference library in `ponder ui`: uploaded into their
collection, described on their Documents page, searched by their runs alone, held to what
the operator allows (ZIM archives only when ``PONDER_UI_UPLOAD_ZIM_MB`` allows them, up to
that size, within the user's total), and refused clearly when a file is not what its name
says. The operator's own archives and libraries are listed for everyone — the app
in-process through Starlette's test client, with the scripted model behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from support import python_docs
from test_ui_uploads import NOTES, As, folder, kept, shared

from ponder.core.errors import CallerRefusedError
from ponder.settings.callers import continued_options, vet
from ponder.testing.zim import write_zim

__all__ = ["shared"]  # the fixture, used by name

GZIP = "How do I compress a file with gzip in Python?"
PAGES = [
    f"library/{name}.html"
    for name in (
        "gzip", "bz2", "lzma", "zlib", "zipfile", "tarfile",
        "shutil", "pathlib", "json", "csv", "random", "heapq",
    )
]  # fmt: skip
KEEPERS = """@book{stevenson1850,
  title = {Keeping the Light: A Lighthouse Keeper's Night},
  author = {Stevenson, Alan and Mackay, Jean},
  year = {1850},
  doi = {10.5555/keepers.1850},
  file = {:lighthouses.md:text/markdown}
}
"""


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A dozen pages of the Python docs as a ZIM archive with a full-text index."""
    out = tmp_path_factory.mktemp("zim") / "python-docs.zim"
    return write_zim(Path(python_docs()), PAGES, out).read_bytes()


def test_a_users_archive_is_described_and_searched_by_their_runs_alone(
    shared: tuple[TestClient, Any], archive: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _app = shared
    monkeypatch.setenv("PONDER_UI_UPLOAD_ZIM_MB", "5")
    alice, bob = As(client, "alice-secret"), As(client, "bob-secret")
    answer = alice.upload(("python-docs.zim", archive))
    assert answer.status_code == 200, answer.text
    page = alice.get("/documents").text
    said = "ZIM archive: “Python 3.11 documentation”, 12 articles, full-text index"
    assert said in page
    assert "Index them now" not in page  # an archive is searched as it is, not indexed
    assert 'value="zim"' in alice.get("/").text  # her archive makes search=zim hers

    mine = alice.run({"uploads": "1", "search": "zim", "topic": GZIP})
    zim = folder("alice") / "python-docs.zim"
    assert f"{zim}/library/gzip.html" in mine, mine

    # Bob neither sees it, nor may search an archive, nor name hers.
    assert "python-docs.zim" not in bob.get("/documents").text
    assert 'value="zim"' not in bob.get("/").text
    refused = bob.post("/runs", data={"topic": GZIP, "uploads": "1", "search": "zim"})
    assert refused.status_code == 400 and "is not enabled here" in refused.text
    with pytest.raises(CallerRefusedError, match="a caller may add only their own uploads"):
        vet({"zim": [str(zim)]}, own=[folder("bob")])
    with pytest.raises(CallerRefusedError, match="zim is set by the server's operator"):
        vet({"zim": [str(zim)]})
    assert vet({"zim": [str(zim)]}, own=[folder("alice")]) == {"zim": [str(zim)]}
    # Her follow-up is vetted again as she asked it: her archive still hers, no one else's.
    asked = {"search": ["zim"], "zim": [str(zim)], "docs": [str(folder("alice"))]}
    assert continued_options(asked, {}, own=[folder("alice")])["zim"] == [str(zim)]
    with pytest.raises(CallerRefusedError):
        continued_options(asked, {}, own=[folder("bob")])


def test_zim_uploads_are_the_operators_choice_within_their_own_size_and_the_total(
    shared: tuple[TestClient, Any], archive: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _app = shared
    alice = As(client, "alice-secret")
    off = alice.upload(("python-docs.zim", archive))
    assert off.status_code == 415
    assert off.json()["error"] == (
        "python-docs.zim is a ZIM archive, and this server takes none (its operator allows "
        "them with PONDER_UI_UPLOAD_ZIM_MB)."
    )
    assert ".zim" not in alice.get("/documents").text.split('accept="')[1].split('"')[0]

    monkeypatch.setenv("PONDER_UI_UPLOAD_ZIM_MB", "2")
    monkeypatch.setenv("PONDER_UI_UPLOAD_FILE_MB", "1")
    monkeypatch.setenv("PONDER_UI_UPLOAD_TOTAL_MB", "3")
    assert "Up to 1 MB a file (a ZIM archive up to 2 MB)" in alice.get("/documents").text
    big = alice.upload(("encyclopedia.zim", b"Z" * 2_100_000))
    assert big.status_code == 413
    assert big.json()["error"] == (
        "encyclopedia.zim is over 2 MB; this server takes ZIM archives up to 2 MB."
    )
    fake = alice.upload(("encyclopedia.zim", b"not an archive at all\n"))
    assert fake.status_code == 415
    error = fake.json()["error"]
    assert error.startswith("encyclopedia.zim is not a ZIM archive ponder can read")
    assert error.endswith("— upload a .zim file from Kiwix."), error
    assert kept("alice") == []

    assert alice.upload(("notes.txt", b"n" * 900_000), ("more.txt", b"m" * 900_000)).is_success
    fits_no_more = alice.upload(("python-docs.zim", b"Z" * 1_500_000))  # 1.8 + 1.5 > 3 MB
    assert fits_no_more.status_code == 413
    assert "may hold 3 MB in all" in fits_no_more.json()["error"]
    assert kept("alice") == ["more.txt", "notes.txt"]


def test_a_users_library_cites_their_own_files_as_its_papers(
    shared: tuple[TestClient, Any],
) -> None:
    client, _app = shared
    alice, bob = As(client, "alice-secret"), As(client, "bob-secret")
    answer = alice.upload(("lighthouses.md", NOTES), ("keepers.bib", KEEPERS.encode()))
    assert answer.status_code == 200, answer.text
    alice.indexed(answer)
    assert "library: 1 entry, 1 attachment found" in alice.get("/documents").text

    mine = alice.run({"uploads": "1", "search": "local"})
    sources = mine.split("## Sources")[1]
    assert "Stevenson" in sources and "1850" in sources, sources
    assert "Keeping the Light" in sources and "10.5555/keepers.1850" in sources

    assert "keepers.bib" not in bob.get("/documents").text
    theirs = bob.run({"uploads": "1", "search": "local"})
    assert "Stevenson" not in theirs and "lighthouses.md" not in theirs
    with pytest.raises(CallerRefusedError, match="library"):
        vet({"library": [str(folder("alice") / "keepers.bib")]}, own=[folder("bob")])


def test_a_library_names_only_files_beside_it_and_a_json_must_be_csl(
    shared: tuple[TestClient, Any],
) -> None:
    client, _app = shared
    alice, bob = As(client, "alice-secret"), As(client, "bob-secret")
    assert alice.upload(("lighthouses.md", NOTES)).is_success
    theirs = str(folder("alice") / "lighthouses.md")
    reaching = KEEPERS.replace(":lighthouses.md:", f":{theirs}:")
    answer = bob.upload(("reaching.bib", reaching.encode()))
    assert answer.status_code == 200, answer.text  # kept, but her file is not its paper
    assert "library: 1 entry, 0 attachments found" in bob.get("/documents").text

    notebook = bob.upload(("settings.json", b'{"theme": "dark"}'))
    assert notebook.status_code == 415
    assert notebook.json()["error"] == (
        "settings.json is not CSL JSON: CSL JSON is a list of items, and this file holds no "
        "list. ponder takes a .json only as a reference library (CSL JSON, as Zotero, "
        "Mendeley or pandoc export it)."
    )
    empty = bob.upload(("refs.json", b"[]"))
    assert empty.status_code == 415 and "it holds no item ponder can read" in empty.text
    prose = bob.upload(("refs.bib", b"Just some words, no entries.\n"))
    assert prose.status_code == 415 and "refs.bib is not BibTeX" in prose.json()["error"]
    csl = b'[{"id": "k", "title": "Keeping the Light", "file": "lighthouses.md"}]'
    assert bob.upload(("refs.json", csl)).is_success
    assert kept("bob") == ["reaching.bib", "refs.json"]


def test_the_operators_archives_and_libraries_are_listed_for_everyone(
    shared: tuple[TestClient, Any],
    archive: bytes,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    client, _app = shared
    (tmp_path / "python-docs.zim").write_bytes(archive)
    (tmp_path / "lighthouses.md").write_bytes(NOTES)
    (tmp_path / "keepers.bib").write_text(KEEPERS)
    monkeypatch.setenv("PONDER_ZIM", str(tmp_path / "python-docs.zim"))
    monkeypatch.setenv("PONDER_LIBRARY", str(tmp_path / "keepers.bib"))
    said = "“Python 3.11 documentation”, 12 articles, full-text index"
    operator = As(client, "op-secret").get("/documents").text
    assert f"<code>{tmp_path / 'python-docs.zim'}</code>: {said}" in operator
    assert f"<code>{tmp_path / 'keepers.bib'}</code>: 1 entry, 1 attachment found" in operator
    caller = As(client, "alice-secret").get("/documents").text
    assert f"<code>python-docs.zim</code>: {said}" in caller
    # A caller is not told where the server keeps them.
    assert f"{tmp_path}/python-docs.zim" not in caller and f"{tmp_path}/keepers" not in caller
