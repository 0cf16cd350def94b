"""A run over your reference library alone: its attachments (PDFs and EPUBs of the Python
docs' HOWTOs) are searched, offline, and the report cites the papers by their authors,
year, title and DOI or URL."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import python_docs

from ponder import aresearch
from ponder.testing import Rig
from ponder.testing.library import (
    DECODED_AUTHORS,
    DECODED_TITLES,
    FILE_AUTHOR,
    PAPERS,
    write_bibtex,
    write_papers,
)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("library")
    write_papers(python_docs(), folder)
    return write_bibtex(folder)


async def test_a_run_cites_the_librarys_papers_by_their_entries(rig: Rig, library: Path) -> None:
    report = await aresearch(
        "How do I sort a list with a key function?",
        model="scripted",
        ollama_base_url=rig.url,
        library=[str(library)],  # no docs, and the tests' web is unreachable: search=auto
        mode="loop",
        max_loops=1,
    )
    cited = report.cited_sources()
    assert {Path(ref.url).suffix for ref in cited} == {".pdf", ".epub"}, report.markdown
    by_file = {str(library.parent / paper.file): paper for paper in PAPERS}
    listed = report.markdown.split("## Sources")[1]
    for ref in cited:
        paper = by_file[ref.url]
        link = f"https://doi.org/{paper.doi}" if paper.doi else paper.url
        assert (ref.title, ref.authors, ref.date, ref.link) == (
            DECODED_TITLES[paper.key],
            DECODED_AUTHORS[paper.key],
            str(paper.year),
            link,
        )
        names = ", ".join(DECODED_AUTHORS[paper.key])
        line = f"{ref.number}. {ref.title} — {names} ({paper.year}) — {link} — {ref.url}"
        assert line in listed
    assert FILE_AUTHOR not in listed  # the files' own metadata gave way to the entries'
    missing = [w for w in report.stats.warnings if "missing" in w]
    assert missing == [
        "refs.bib: 1 entry's file is missing: gone2019 (papers/gone2019.pdf) — the rest of the "
        "library is searched."
    ]
    assert any("searches your reference library only" in w for w in report.stats.warnings)


async def test_a_library_that_cannot_be_read_stops_the_run_before_any_model_call(
    rig: Rig, tmp_path: Path
) -> None:
    from ponder import SearchError

    broken = tmp_path / "refs.json"
    broken.write_text('[{"id": "smith2021", "title": ', encoding="utf-8")
    with pytest.raises(SearchError, match=f"Cannot read your reference library {broken}"):
        await aresearch(
            "Anything?", model="scripted", ollama_base_url=rig.url, library=[str(broken)]
        )
    assert rig.chat_log() == []
