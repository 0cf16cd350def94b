"""The strong-prose generator makes what it claims: report-shaped Markdown of the Python
documentation's own sentences, each cited to the page it came from, with its ground truth."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from support import python_docs

from ponder.services.search.backends.local.formats import read_document
from ponder.testing.prose import GeneratedReport, generate, misdirect, render, tokens
from ponder.testing.prose.model import contains
from ponder.testing.prose.score import cited_segments
from ponder.testing.pydocs import inline_text

SEEDS = range(50)


@pytest.fixture(scope="module")
def docs() -> Path:
    return python_docs()  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def reports(docs: Path) -> list[GeneratedReport]:
    return [generate(docs, seed) for seed in SEEDS]


def markdown(report: GeneratedReport) -> str:
    return render(report, {page: page + 1 for page in range(len(report.pages))})


def test_fifty_seeds_make_fifty_distinct_reports_and_a_seed_always_the_same(
    docs: Path, reports: list[GeneratedReport]
) -> None:
    assert len({markdown(r) for r in reports}) == len(SEEDS)
    assert markdown(generate(docs, 7)) == markdown(reports[7])
    assert all(3 <= len(r.pages) <= 6 for r in reports)
    assert all(600 <= r.words() <= 3500 for r in reports), [r.words() for r in reports]


def test_every_sentence_is_the_documentation_s_own_and_the_run_can_read_it(
    docs: Path, reports: list[GeneratedReport], tmp_path: Path
) -> None:
    for report in reports[:12]:
        paths = report.write_pages(tmp_path / str(report.seed))
        # As ponder's own reader reads the written page, and as Debian's page has it.
        read = [tokens(read_document(p.suffix, p.read_bytes(), p.stem).text) for p in paths]
        # Debian's page, its words run together (block boundaries there have no spaces).
        debian = [(docs / f"{e.page.name}.html").read_text("utf-8") for e in report.pages]
        original = ["".join(tokens(inline_text(html))) for html in debian]
        for unit in report.units():
            for cell in unit.text.split("\t"):  # a table row: its cells, in order
                assert contains(read[unit.page], tokens(cell)), (report.seed, cell)
                assert "".join(tokens(cell)) in original[unit.page], (report.seed, cell)


def test_each_citation_names_the_page_its_sentence_came_from(
    reports: list[GeneratedReport],
) -> None:
    for report in reports:
        cited = [u for u in report.units() if u.cited is not None]
        segments = list(cited_segments(markdown(report)))
        assert len(segments) == len(cited)
        for (words, numbers), unit in zip(segments, cited, strict=True):
            assert numbers == [unit.page + 1]
            assert words[len(words) - len(tokens(unit.text)) :] == tokens(unit.text)


def test_misdirection_points_the_given_share_elsewhere_and_keeps_the_truth(
    reports: list[GeneratedReport],
) -> None:
    for report in reports[:10]:
        wrong = misdirect(report, 0.3, seed=report.seed)
        pairs = list(zip(report.units(), wrong.units(), strict=True))
        cited = [(a, b) for a, b in pairs if a.cited is not None]
        moved = [(a, b) for a, b in cited if b.cited != a.cited]
        assert len(moved) == round(0.3 * len(cited))
        assert all(b.page == a.page and b.cited != b.page for a, b in moved)
        assert all(0 <= b.cited < len(report.pages) for _, b in moved if b.cited is not None)
        assert [a.text for a, _ in pairs] == [b.text for _, b in pairs]
        assert all(u.cited == u.page for u in report.units() if u.cited is not None)


def test_reports_have_the_shape_capable_models_write(reports: list[GeneratedReport]) -> None:
    seen: Counter[str] = Counter()
    for report in reports:
        text = markdown(report)
        lines = text.splitlines()
        headings = [line.lstrip("#").strip() for line in lines if line.startswith("#")]
        assert lines[0] == f"# {report.title}"
        assert sum(line.startswith("## ") for line in lines) >= 2
        before_first_citation = text[: re.search(r"\[\d+\]", text).start()]  # type: ignore[union-attr]
        prose = [x for x in before_first_citation.splitlines() if not x.startswith("#")]
        outline = [re.sub(r"^\d+\. ", "", x) for x in lines if re.match(r"\d+\. [^[]*$", x)]
        features = {
            "title repeated as the first heading": headings[:2] == [report.title] * 2,
            "uncited introduction over 200 words": len(" ".join(prose).split()) > 200,
            "outline items that come back as headings": bool(outline)
            and set(outline) <= set(headings[1:]),
            "a sub-heading under several sections": any(
                n >= 2 for h, n in Counter(headings).items() if h != report.title
            ),
            "a table": any(line.startswith("| ") for line in lines),
            "a fenced code block": "\n```" in text,
            "a bulleted list": any(line.startswith("- ") for line in lines),
            "a sentence said twice": any(
                n >= 2 for n in Counter(u.text for u in report.units()).values()
            ),
        }
        seen.update(name for name, present in features.items() if present)
    assert all(seen[name] >= 5 for name in features), seen


def test_sources_are_the_pages_as_ponder_records_them(
    reports: list[GeneratedReport], tmp_path: Path
) -> None:
    report = reports[0]
    sources = report.sources(tmp_path)
    assert [s["number"] for s in sources] == list(range(1, len(report.pages) + 1))
    for source, excerpt in zip(sources, report.pages, strict=True):
        assert source["url"] == str(tmp_path / excerpt.file_name)
        assert source["origin"] == "local" and source["title"] == excerpt.page.title
        assert source["passages"] and all(p.strip() for p in source["passages"])
