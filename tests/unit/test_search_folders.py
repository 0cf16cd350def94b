"""One index per folder, shared by every set of roots inside it; hidden files and symlinks
that lead out of a folder are neither indexed nor offered unless the operator allows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.edges import cache_dir

import ponder.services.search.backends.local.reading as reading
from ponder.core.errors import CallerRefusedError
from ponder.services.search.backends.local.indexes import FolderIndexes, index, plan
from ponder.settings.callers import vet


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """A folder with two sub-folders, a hidden one, and symlinks in and out of it."""
    root = tmp_path / "library"
    for folder, name, text in [
        ("", "overview.md", "# Overview\n\nThe library holds notes on tides and on bees.\n"),
        ("tides", "spring.md", "# Spring tides\n\nSpring tides follow the new and full Moon.\n"),
        ("tides", "neap.md", "# Neap tides\n\nNeap tides come at the Moon's quarters.\n"),
        ("bees", "waggle.txt", "Honeybees dance a waggle dance to point at flowers.\n"),
        ("bees", "swarm.txt", "A swarm of bees leaves the hive with the old queen.\n"),
        (".drafts", "unfinished.md", "Draft: the zeppelin chapter, not for anyone's eyes.\n"),
    ]:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text, encoding="utf-8")
    (root / ".env.md").write_text("Hidden: the zeppelin password.\n", encoding="utf-8")
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_rsa.txt").write_text("zeppelin private key material\n", encoding="utf-8")
    (root / "bees" / "keys.txt").symlink_to(outside / "id_rsa.txt")  # leads out
    (root / "bees" / "draft.md").symlink_to(root / ".drafts" / "unfinished.md")  # into hidden
    (root / "bees" / "tides.md").symlink_to(root / "tides" / "spring.md")  # stays inside
    return root


def indexes_on_disk(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "indexes").glob("*.sqlite"))


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files read (and so embedded) from now on."""
    read: list[str] = []
    real = reading._read  # what sends a file to a parsing worker

    def counted(job: reading.Job) -> reading.Extracted:
        if job.refused is None:  # a link out is skipped unopened: not read
            read.append(job.path)
        return real(job)

    monkeypatch.setattr(reading, "_read", counted)
    return read


def test_every_set_of_roots_in_a_folder_shares_its_index_and_reads_nothing_twice(
    library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = reads(monkeypatch)
    first = index([library], cache_dir=cache_dir())
    assert first.indexed == 6 and len(indexes_on_disk(tmp_path)) == 1
    read.clear()
    # What a caller could send, over and over: before, each set was a new index of it all.
    for roots in (
        [library, library / "tides"],
        [library, library / "bees"],
        [library / "tides"],
        [library / "bees", library / "tides" / "neap.md"],
        [library / "bees" / ".." / "tides"],
    ):
        again = index(roots, cache_dir=cache_dir())
        assert again.indexed == 0 and again.removed == 0, roots
    assert read == [] and len(indexes_on_disk(tmp_path)) == 1


def test_a_sub_folder_of_an_operator_root_uses_the_roots_index_from_the_first_time(
    library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = reads(monkeypatch)
    assert index([library / "tides"], anchors=[library], cache_dir=cache_dir()).indexed == 2
    assert index([library / "bees"], anchors=[library], cache_dir=cache_dir()).indexed == 3
    whole = index([library], anchors=[library], cache_dir=cache_dir())
    # Only overview.md was left to read; the two links out are skipped, unread, from before.
    assert whole.indexed == 1 and whole.unchanged == 7 and whole.skipped == 2
    assert len(read) == len(set(read)) == 6 and len(indexes_on_disk(tmp_path)) == 1
    assert plan([library / "bees"], [library], cache_dir=cache_dir()) == [
        (library, [library / "bees"])
    ]


def test_a_sub_folder_searches_only_its_part_and_refreshes_only_it(
    library: Path, tmp_path: Path
) -> None:
    index([library], cache_dir=cache_dir())
    tides = FolderIndexes([library / "tides"], cache_dir=cache_dir())
    hits = tides.search("Moon tides bees", 5)
    assert {Path(h.url).name for h in hits} == {"spring.md", "neap.md"}
    (library / "bees" / "swarm.txt").unlink()  # outside the part in use
    (library / "tides" / "king.md").write_text("King tides are the highest.\n", "utf-8")
    stats = tides.index()
    assert (stats.indexed, stats.removed) == (1, 0)
    whole = FolderIndexes([library], cache_dir=cache_dir())
    assert Path(whole.search("swarm old queen", 1)[0].url).name == "swarm.txt"  # not forgotten
    assert whole.status().stale_files == 1  # until the folder itself is refreshed
    tides.close()
    whole.close()


def test_folders_apart_are_ranked_together_by_their_scores(tmp_path: Path) -> None:
    bees, tides = tmp_path / "bees", tmp_path / "tides"
    for folder, count in ((bees, 6), (tides, 1)):
        folder.mkdir()
        for number in range(count):
            (folder / f"{folder.name}{number}.md").write_text(
                f"# {folder.name} {number}\n\nBees and hives, note {number}.\n", "utf-8"
            )
    (tides / "turbines.md").write_text("# Tidal turbines\n\nTidal turbines in straits.\n")
    both = FolderIndexes([bees, tides], cache_dir=cache_dir())
    assert len(both.units) == 2
    both.index()
    hits = both.search("tidal turbines", 3)
    assert Path(hits[0].url).name == "turbines.md"  # the better match, wherever it lies
    assert {Path(h.url).parent for h in both.search("bees hives", 10)} == {bees, tides}
    both.close()


def test_hidden_files_and_links_out_of_the_folder_are_not_indexed(library: Path) -> None:
    stats = index([library], cache_dir=cache_dir())
    found = FolderIndexes([library], cache_dir=cache_dir())
    names = {Path(h.url).name for h in found.search("zeppelin password private key", 10)}
    assert names == set() and stats.indexed == 6
    # The links out are named among the skipped, with why; the hidden entries counted.
    assert {Path(p).name: why.split(" (")[0] for p, why in stats.skipped_files} == {
        "keys.txt": "a link that leads out of its folder or into a hidden entry",
        "draft.md": "a link that leads out of its folder or into a hidden entry",
    }
    assert stats.left_out == 2  # .drafts and .env.md
    assert Path(found.search("spring tides new full moon", 3)[0].url).parent.name in (
        "tides", "bees",  # bees/tides.md is a link that stays inside: kept
    )  # fmt: skip
    found.close()


def test_the_operator_can_index_hidden_files_and_links(library: Path) -> None:
    stats = index([library], hidden=True, cache_dir=cache_dir())
    assert stats.files == 10
    found = FolderIndexes([library], hidden=True, cache_dir=cache_dir())
    names = {Path(h.url).name for h in found.search("zeppelin", 10)}
    assert {".env.md", "keys.txt"} <= names  # draft.md and unfinished.md: one text, one slot
    assert names & {"unfinished.md", "draft.md"}
    found.close()


def test_a_caller_may_not_name_a_hidden_entry_unless_the_operator_allows_it(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_DOCS", str(library))
    for hidden in (library / ".drafts", library / ".env.md", library / "bees" / "draft.md"):
        with pytest.raises(CallerRefusedError, match="hidden file or folder"):
            vet({"docs": [str(library / "tides"), str(hidden)]})
    with pytest.raises(CallerRefusedError, match="outside this server's document folders"):
        vet({"docs": [str(library / "bees" / "keys.txt")]})  # a link out resolves outside
    assert vet({"docs": [str(library / "bees" / "tides.md")]})  # a link that stays inside
    monkeypatch.setenv("PONDER_DOCS_HIDDEN_AND_SYMLINKS", "1")
    assert vet({"docs": [str(library / ".drafts")]}) == {"docs": [str(library / ".drafts")]}


def test_a_link_in_a_folder_never_serves_a_file_of_the_parent_folder_indexed_before(
    tmp_path: Path,
) -> None:
    """The operator once indexed their home; a folder in it is shared with callers, and
    someone puts a link there to a private file elsewhere in that home. Searched through
    the home's index, the shared folder does not serve it."""
    home = tmp_path / "home"
    shared, private = home / "shared", home / "private"
    shared.mkdir(parents=True)
    private.mkdir()
    (private / "diary.txt").write_text("The zeppelin hangar code is 4711.\n", "utf-8")
    (shared / "notes.md").write_text("# Notes\n\nSpring tides follow the Moon.\n", "utf-8")
    (shared / "hangar.txt").symlink_to(private / "diary.txt")
    index([home], cache_dir=cache_dir())  # `ponder index ~`, for the operator's own use
    served = FolderIndexes([shared], cache_dir=cache_dir())
    try:
        assert [unit.scope for unit in served.units if unit.scope], "the home's index serves it"
        found = served.search("zeppelin hangar code", 5)
        tides = served.search("spring tides", 5)
    finally:
        served.close()
    assert found == [] and [Path(hit.url).name for hit in tides] == ["notes.md"]
