"""A reader of a shared document index: it refuses to write, says what to do when the
index is missing or kept in a write-ahead log, searches what the indexer wrote, and
`ponder doctor` on it says where to index."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import write_corpus

from ponder.interfaces.doctor import index_checks
from ponder.services.search.backends.local.index import LocalIndex
from ponder.services.search.backends.local.shared import IndexReadOnlyError, in_wal_mode
from ponder.settings.configuration import Configuration


def test_a_reader_searches_the_indexers_index_and_refuses_to_write(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    shared = tmp_path / "shared"
    writer = LocalIndex([docs], cache_dir=shared, role="indexer")
    writer.index()
    writer.close()
    assert not in_wal_mode(writer.db_path)
    reader = LocalIndex([docs], cache_dir=shared, role="reader")
    assert reader.db_path == writer.db_path
    assert [r.title for r in reader.search("harbour pilots", 3)] == ["Harbours"]
    with pytest.raises(IndexReadOnlyError, match="only reads"):
        reader.index()


@pytest.mark.parametrize("written_by", [None, "own"])
def test_a_reader_without_a_shareable_index_searches_nothing_and_says_why(
    tmp_path: Path, written_by: str | None
) -> None:
    docs = write_corpus(tmp_path / "docs")
    if written_by == "own":  # this machine's own index: a write-ahead log
        LocalIndex([docs], cache_dir=tmp_path, role="own").index()
    said: list[str] = []
    reader = LocalIndex([docs], cache_dir=tmp_path, role="reader", warn=said.append)
    assert reader.search("harbour pilots", 3) == []
    expected = "write-ahead log" if written_by else "No shared index"
    assert len(said) == 1 and expected in said[0] and str(tmp_path) not in said[0]


def test_doctor_on_a_reader_says_to_index_on_the_indexer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_corpus(tmp_path / "docs")
    LocalIndex([docs], cache_dir=tmp_path / "shared", role="indexer").index()
    (docs / "late.md").write_text((docs / "tides.md").read_text("utf-8"), "utf-8")
    monkeypatch.setenv("PONDER_INDEX_DIR", str(tmp_path / "shared"))
    monkeypatch.setenv("PONDER_INDEX_READONLY", "1")
    config = Configuration.create(search="local", docs=[str(docs)])
    (freshness, *_) = index_checks(config)
    assert freshness.outcome == "warn" and "1 file(s) changed" in freshness.message
    assert "on the indexer" in freshness.message and "a run also" not in freshness.message
