"""A page the research found that answers the question, or one of its parts, is cited.

Extractive reports quote the search's own second result beside what the pages read
choose; a written report that leaves a part of the question uncited is completed with a
quote of that part's best page; a report that answers every part is left as written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support import over_corpus

from ponder import aresearch
from ponder.services.report.extractive import most_relevant, quoted_sources
from ponder.services.report.parts import completed_parts
from ponder.services.research.aspects import aspects_of
from ponder.testing import ChatRequest, Rig, ScriptedBackend
from ponder.testing.corpus import pydoc_corpus, pydoc_text

QUESTION = "How do I send pickled objects over a socket?"


def read_at(module: str, marker: str, lines: int = 8) -> str:
    """What a search shows of a pydoc page: a few lines from where ``marker`` is."""
    text = pydoc_text(module).splitlines()
    start = next(i for i, line in enumerate(text) if marker in line)
    return "\n".join(text[start : start + lines])


def sources_read(pages: list[tuple[str, str]]) -> list[Any]:
    """Sources numbered 1.. in the order found, each read at one place."""
    return [
        {
            "number": n,
            "url": f"/d/{module}.txt",
            "title": module,
            "origin": "local",
            "passages": [read_at(module, marker)],
            "locations": [""],
        }
        for n, (module, marker) in enumerate(pages, start=1)
    ]


def test_the_searchs_second_result_is_quoted_beside_what_the_pages_read_choose() -> None:
    """A search ranks compileall second for the question on its whole page, but what was
    read of it (a signature) holds none of the question's words: among the pages read it
    ranks fifth. It is quoted all the same, and the four the pages read choose still are."""
    topic = "How do I create a .pyc file?"
    sources = sources_read(
        [
            ("py_compile", "NAME"),
            ("compileall", "compile_dir("),
            ("zipfile", "class PyZipFile"),
            ("importlib", "import_module("),
            ("tempfile", "mkstemp("),
            ("imp", "cache_from_source("),
            ("zipimport", "NAME"),
        ]
    )
    by_pages = [s["title"] for s in most_relevant(sources, topic, len(sources))]
    assert by_pages.index("compileall") >= 4  # the pages read alone would not quote it
    chosen = [source["title"] for source, _ in quoted_sources(sources, topic, 4, [])]
    assert chosen == ["py_compile", "imp", "zipfile", "zipimport", "compileall"]


def test_the_searchs_second_result_quoted_already_adds_nothing() -> None:
    sources = sources_read([("pickle", "NAME"), ("socket", "NAME"), ("json", "NAME")])
    chosen = [source["title"] for source, _ in quoted_sources(sources, QUESTION, 4, [])]
    assert sorted(chosen) == ["json", "pickle", "socket"]


@pytest.fixture
def pages() -> list[Any]:
    return sources_read([("socket", "NAME"), ("pickle", "dumps(obj, protocol"), ("json", "NAME")])


def test_a_written_report_that_leaves_a_part_uncited_gets_a_quote_of_its_best_page(
    pages: list[Any],
) -> None:
    body = "# Sockets\n\nA socket hands bytes to a connected peer with sendall() [1]."
    completed, parts = completed_parts(body, pages, aspects_of(QUESTION))
    assert parts == ["“send pickled objects”"]
    assert completed.startswith(body)  # the model's text is kept as written
    added = completed[len(body) :]
    assert "cites nothing on “send pickled objects”" in added
    assert "> — pickle [2]" in added and "[3]" not in added


@pytest.mark.parametrize(
    "body",
    [
        # the part's best page is cited
        "Sockets send bytes [1]. Objects are turned into bytes first [2].",
        # a cited passage speaks of the part, though it cites another page
        "Send the pickled objects through the socket with sendall [1].",
        # nothing is cited: the composer writes an extractive report instead
        "Sockets send bytes, and pickled objects are bytes.",
    ],
)
def test_a_report_that_covers_every_part_or_cites_nothing_is_left_as_written(
    body: str, pages: list[Any]
) -> None:
    assert completed_parts(body, pages, aspects_of(QUESTION)) == (body, [])


def test_a_question_with_one_part_is_never_completed(pages: list[Any]) -> None:
    body = "A socket sends bytes [1]."
    assert completed_parts(body, pages, aspects_of("How does a socket send bytes?")) == (body, [])


def socket_only(request: ChatRequest) -> str:
    """A model whose report is a good paragraph on sockets, citing only the socket page."""
    number = re.search(r'<source n="(\d+)" title="socket"', request.prompt_text)
    assert number, "the socket page is among the excerpts"
    return (
        "# Sending data\n\nA socket sends data to the connected peer with send() or sendall() "
        f"[{number.group(1)}].\n"
    )


async def test_a_run_whose_report_leaves_a_part_uncited_cites_its_page(
    rig: Rig, scripted: ScriptedBackend, tmp_path: Path
) -> None:
    pydoc_corpus(tmp_path, ["pickle", "socket", "json", "marshal", "selectors", "struct"])
    scripted.overrides["text"] = socket_only
    settings = over_corpus(rig, tmp_path, mode="loop", max_loops=1)
    report = await aresearch(QUESTION, **settings)
    cited = [source.title for source in report.cited_sources()]
    assert "socket" in cited and "pickle" in cited
    assert report.stats.parts_completed == 1 and not report.stats.extractive_report
    assert "A socket sends data to the connected peer" in report.markdown
    assert any("cited nothing on" in w for w in report.stats.warnings)
