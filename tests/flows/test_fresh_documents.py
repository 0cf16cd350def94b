"""A run reads the document folder as it is when the run begins, also in a long-lived
process (`ponder ui`, a watch's scheduler) where the last run indexed it seconds ago."""

from __future__ import annotations

from pathlib import Path

from support import over_corpus, python_docs
from support.reports import docs_corpus

from ponder import aresearch
from ponder.testing import Rig

QUESTION = "How do I read and write JSON files in Python?"


async def test_a_page_added_between_two_runs_is_read_by_the_second(
    rig: Rig, tmp_path: Path
) -> None:
    folder = docs_corpus(python_docs(), tmp_path / "docs")
    json_page = folder / "library-json.html"
    kept_aside = json_page.read_bytes()
    json_page.unlink()
    settings = over_corpus(rig, folder, mode="loop", max_loops=1)

    before = await aresearch(QUESTION, **settings)
    assert str(json_page) not in {source.url for source in before.sources}
    json_page.write_bytes(kept_aside)  # seconds later, in the same process
    after = await aresearch(QUESTION, **settings)
    assert str(json_page) in {source.url for source in after.sources}
