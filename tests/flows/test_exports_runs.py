"""Exports of real runs against the scripted rig: from the page (`/runs/{id}/export.KIND`
and its Export menu), from the command line (`--format`, and `ponder resume ID --format`
for a finished run), a library run's bibliography, and the deep pipeline's twenty-source
report over the Python docs as a PDF in under 5 s."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support import python_docs
from support.exported import flat, read_bibtex, read_docx, read_odt, read_pdf, read_ris
from support.reports import deep_report, docs_corpus

from ponder import aresearch, export
from ponder.interfaces.cli import main
from ponder.interfaces.exports import KINDS
from ponder.interfaces.ui.app import create_app
from ponder.testing import Rig, ScriptedBackend
from ponder.testing.library import PAPERS, write_bibtex, write_papers

QUESTION = "Why are there two tides a day?"
SLUG = "why-are-there-two-tides-a-day"


@pytest.fixture
def page(rig: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """`ponder ui` in-process, with the scripted model and the tides corpus."""
    monkeypatch.setenv("PONDER_MODEL", "scripted")
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", rig.url)
    monkeypatch.setenv("PONDER_SEARCH", "local")
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(corpus))
    monkeypatch.setenv("PONDER_MAX_LOOPS", "1")
    app = create_app("127.0.0.1", 8765)
    with TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False) as client:
        yield client


def finished_run(client: TestClient, corpus: Path) -> str:
    asked = {"topic": QUESTION, "mode": "loop", "docs": str(corpus)}
    started = client.post("/runs", data=asked)
    assert started.status_code == 303, started.text
    path = str(started.headers["location"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = client.get(f"{path}/log").json()
        if log and log[-1]["kind"] == "status" and log[-1]["status"] != "running":
            assert log[-1]["status"] == "done", log[-1]
            return path
        time.sleep(0.1)
    raise AssertionError("the run did not finish")


def test_the_page_offers_every_export_named_after_the_question(
    page: TestClient, corpus: Path
) -> None:
    path = finished_run(page, corpus)
    shown = page.get(path).text
    menu = shown[shown.index('<details class="exports"') :]
    menu = menu[: menu.index("</details>")]
    for name in (*KINDS, "json"):
        assert f'href="{path}/export.{name}" download' in menu
    for name, kind in KINDS.items():
        answer = page.get(f"{path}/export.{name}")
        assert answer.status_code == 200, (name, answer.text[:200])
        assert answer.headers["content-type"].split(";")[0] == kind.media_type.split(";")[0]
        disposition = answer.headers["content-disposition"]
        assert disposition == f'attachment; filename="{SLUG}.{name}"'
    pdf = read_pdf(page.get(f"{path}/export.pdf").content)
    assert flat(QUESTION) in flat(pdf.text) and "[1]" in pdf.text
    assert read_docx(page.get(f"{path}/export.docx").content).anchors
    assert read_odt(page.get(f"{path}/export.odt").content).bookmarks
    assert read_bibtex(page.get(f"{path}/export.bib").content).entries
    assert read_ris(page.get(f"{path}/export.ris").content)
    assert page.get(f"{path}/export.csl.json").json()[0]["type"] == "document"
    unknown = page.get(f"{path}/export.tex")
    assert unknown.status_code == 404 and "csl.json" in unknown.text


def test_the_command_line_writes_each_format_named_after_the_question(
    rig: Rig, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    flags = ["--search", "local", "--docs", str(corpus), "--ollama-url", rig.url]
    flags += ["--model", "scripted", "--loops", "1", "--mode", "loop"]
    assert main([QUESTION, *flags, "--format", "pdf"]) == 0
    pdf = read_pdf((tmp_path / f"{SLUG}.pdf").read_bytes())
    assert flat(QUESTION) in flat(pdf.text) and pdf.internal_links
    # A finished run, exported again: `ponder resume ID --format bib`, or by --out's suffix.
    from ponder.api.history import runs

    [run] = runs(5)
    assert main(["resume", run.thread_id, "--format", "bib"]) == 0
    assert read_bibtex((tmp_path / f"{SLUG}.bib").read_bytes()).entries
    assert main(["resume", run.thread_id, "--out", "tides.csl.json"]) == 0
    assert (tmp_path / "tides.csl.json").read_text(encoding="utf-8").startswith("[")
    assert main(["resume", run.thread_id, "--format", "docx"]) == 0
    assert read_docx((tmp_path / f"{SLUG}.docx").read_bytes()).bookmarks


async def test_a_library_runs_bibliography_has_the_papers_entries(rig: Rig, tmp_path: Path) -> None:
    folder = tmp_path / "library"
    write_papers(python_docs(), folder)
    library = write_bibtex(folder)
    report = await aresearch(
        "How do I sort a list with a key function?",
        model="scripted",
        ollama_base_url=rig.url,
        library=[str(library)],
        mode="loop",
        max_loops=1,
    )
    papers = {str(folder / paper.file): paper for paper in PAPERS}
    cited = [papers[source.url] for source in report.cited_sources()]
    assert cited
    entries = {e.key: e.fields_dict for e in read_bibtex(export(report, "bib")).entries}
    records = read_ris(export(report, "ris"))
    for paper in cited:
        entry = entries[paper.key]  # the library's own key: family name and year
        assert entry["year"].value == str(paper.year)
        families = [family for family, _given in paper.authors]
        assert all(family.replace('{\\"o}', "ö") in entry["author"].value for family in families)
        if paper.doi:
            assert entry["doi"].value == paper.doi
            assert any(("DO", paper.doi) in record for record in records)
        else:
            assert entry["url"].value == paper.url


def test_a_deep_report_of_twenty_sources_is_a_pdf_in_under_five_seconds(
    rig: Rig, scripted: ScriptedBackend, tmp_path: Path
) -> None:
    corpus = docs_corpus(python_docs(), tmp_path / "docs")
    report = deep_report(rig, scripted, corpus)
    cited = report.cited_sources()
    assert len(cited) >= 20, len(cited)
    started = time.perf_counter()
    data = export(report, "pdf")
    took = time.perf_counter() - started
    assert took < 5, took
    pdf = read_pdf(data)
    text = flat(pdf.text)
    for source in cited:
        assert flat(source.url) in text and f"[{source.number}]" in pdf.text
    for citation in report.citations:
        assert flat(citation.quote) in text, citation.quote
    assert pdf.internal_links >= len(report.citations) - 1  # one [n] may sit in code
