"""Exports people hand on: a report of the Python docs' own sentences as PDF, DOCX, ODT,
BibTeX, RIS and CSL JSON, each read back by its own kind of reader (pdfium, python-docx,
odfpy, bibtexparser, ponder's own library readers); a thread of two turns; and a report
built to break each format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support import python_docs
from support.exported import flat, read_bibtex, read_docx, read_odt, read_pdf, read_ris
from support.reports import DOCS, HOSTILE, docs_report, hostile_report

import ponder
from ponder.core.result import Citation, Report, RunStats, SourceRef
from ponder.interfaces.exports import KINDS, NAMES, export, kind_of_path
from ponder.testing.library import DECODED_AUTHORS, PAPERS

GREEK = "Η ταξινόμηση είναι σταθερή"  # "sorting is stable"


@pytest.fixture(scope="module")
def report() -> Report:
    return docs_report(python_docs())


def quotes(report: Report) -> list[str]:
    return [citation.quote for citation in report.citations]


def test_the_python_api_exports_every_format_from_one_report_or_a_list() -> None:
    assert ponder.export is export and "export" in ponder.__all__
    assert NAMES == ("md", "html", "pdf", "docx", "odt", "bib", "ris", "csl.json")
    assert kind_of_path("notes.csl.json") is KINDS["csl.json"]
    assert kind_of_path("Report.PDF") is KINDS["pdf"] and kind_of_path("x.txt") is None
    with pytest.raises(ponder.InvalidInputError, match="choose one of md, html, pdf"):
        export([], "tex")
    with pytest.raises(ponder.InvalidInputError, match="a list of the Reports of a thread"):
        export([], "pdf")


def test_the_pdf_holds_the_report_its_citations_sources_and_evidence(report: Report) -> None:
    pdf = read_pdf(export(report, "pdf"))
    text = flat(pdf.text)
    assert pdf.title == report.topic
    assert flat("Sorting and searching with Python's standard library") in text
    for source in report.cited_sources():
        assert f"[{source.number}]" in pdf.text
        assert flat(source.title) in text
        assert flat(source.url) in text  # a web address, or a document's path
    for quote in quotes(report):
        assert flat(quote.replace("`", "")) in text.replace("`", ""), quote
    # The library's papers by their authors, years and DOI or URL.
    assert flat("Andrew Dalke, Raymond Hettinger (2021)") in text
    assert "https://doi.org/10.5555/pydocs.sorting" in pdf.uris
    assert flat("Vinay Sajip, Martin von Löwis (2020)") in text
    # Each [n] leads inside the document (to its evidence); web pages are links.
    assert pdf.internal_links >= len(report.citations)
    assert f"{DOCS}library/bisect.html" in pdf.uris
    assert all(uri.startswith("https://") and "\u200b" not in uri for uri in pdf.uris)
    # The table is a table: its head and a cell's words, in reading order.
    assert flat("Module What it offers Where") in text
    assert "/home/ada/notes" not in "".join(pdf.uris)  # a path is shown, never a link


def test_greek_and_accents_are_set_in_the_fonts_the_package_ships() -> None:
    """Libertinus Serif (typst's wheel) has the glyphs: the text comes back as written and
    no letter fell back to another font (a missing glyph would: DejaVu here, or boxes)."""
    source = SourceRef(number=1, cited=True, url="https://el.example/σ", title=GREEK)
    written = Report(
        topic="Ταξινόμηση στην Python: Básico, Löwis, naïve, Ærø",
        markdown=f"# Ταξινόμηση\n\n{GREEK} — Básico, Löwis, naïve, Ærø [1].\n",
        summary="",
        sources=[source],
        stats=RunStats(),
        thread_id="t",
    )
    pdf = read_pdf(export(written, "pdf"))
    assert GREEK in pdf.text and "Básico, Löwis, naïve, Ærø" in pdf.text
    for char in set(GREEK + "áöïÆø") - {" "}:
        assert all(font.startswith("LibertinusSerif-") for font in pdf.fonts[char]), char


def test_the_docx_opens_with_its_headings_table_sources_and_evidence(report: Report) -> None:
    word = read_docx(export(report, "docx"))
    assert word.headings[0] == ("Heading 1", "Sorting and searching with Python's standard library")
    assert ("Heading 2", "Sources") in word.headings
    for source in report.cited_sources():
        assert source.title in word.text and source.url in word.text
    for quote in quotes(report):
        assert f"“{quote}”" in word.text
    assert "Andrew Dalke, Raymond Hettinger (2021)" in word.text
    assert "https://doi.org/10.5555/pydocs.sorting" in word.links
    assert f"{DOCS}library/bisect.html" in word.links
    # Every [n] is a link to a bookmark that exists: its evidence.
    assert len(word.anchors) >= len(report.citations)
    assert set(word.anchors) <= set(word.bookmarks)
    [table] = word.tables
    assert [cell.text for cell in table.rows[0].cells] == ["Module", "What it offers", "Where"]
    assert table.rows[1].cells[0].text == "bisect" and len(table.rows) == 4


def test_the_odt_opens_with_its_headings_table_sources_and_evidence(report: Report) -> None:
    odt = read_odt(export(report, "odt"))
    assert odt.headings[0] == (1, "Sorting and searching with Python's standard library")
    assert (2, "Sources") in odt.headings
    for source in report.cited_sources():
        assert source.title in odt.text and source.url in odt.text
    for quote in quotes(report):
        assert f"“{quote}”" in odt.text
    assert "https://doi.org/10.5555/pydocs.sorting" in odt.links
    internal = [link[1:] for link in odt.links if link.startswith("#")]
    assert len(internal) >= len(report.citations) and set(internal) <= set(odt.bookmarks)
    assert odt.table_rows == [4]


def test_the_bibtex_parses_with_one_entry_per_cited_source(report: Report) -> None:
    data = export(report, "bib")
    library = read_bibtex(data)
    cited = report.cited_sources()
    assert len(library.entries) == len(cited)
    entries = {entry.key: entry.fields_dict for entry in library.entries}
    dalke = entries["dalke2021"]
    assert dalke["author"].value == "Dalke, Andrew and Hettinger, Raymond"
    assert (dalke["year"].value, dalke["doi"].value) == ("2021", "10.5555/pydocs.sorting")
    sajip = entries["sajip2020"]
    assert sajip["author"].value == "Sajip, Vinay and von Löwis, Martin"
    assert sajip["title"].value == "Logging HOWTO: Básico to advanced"
    assert sajip["url"].value == "https://docs.python.org/3.11/howto/logging.html"
    notes = entries["lovelace2024"]
    assert notes["title"].value == "My notes on itertools {draft} #3"
    assert notes["note"].value == "Document: /home/ada/notes/itertools & recipes_v2.md"
    assert notes["month"].value == "mar"
    assert entries["bisectarray"]["url"].value == f"{DOCS}library/bisect.html"
    assert data.isascii()  # 8-bit BibTeX reads it: LaTeX accents, not UTF-8


def test_the_bibtex_and_csl_json_read_back_as_ponder_reads_a_reference_library(
    report: Report,
) -> None:
    """What ponder exports, its own library readers take in again: the same authors, year,
    title and DOI or URL as the papers' entries."""
    from ponder.services.search.backends.local.library.bibtex import read_bibtex as bibtex
    from ponder.services.search.backends.local.library.csl import read_csl_json

    papers = {paper.key: paper for paper in PAPERS}
    for entries, failed in (
        bibtex(export(report, "bib").decode()),
        read_csl_json(export(report, "csl.json").decode()),
    ):
        assert not failed
        by_key = {entry.key: entry for entry in entries}
        for key in ("dalke2021", "sajip2020"):
            entry, paper = by_key[key], papers[key]
            assert entry.authors == DECODED_AUTHORS[key]
            assert entry.date == str(paper.year)
            assert (entry.doi or None, entry.url or None) == (paper.doi or None, paper.url or None)
        assert by_key["lovelace2024"].title == "My notes on itertools {draft} #3"


def test_the_ris_has_a_record_per_cited_source_with_its_tags(report: Report) -> None:
    records = [dict_of(record) for record in read_ris(export(report, "ris"))]
    assert len(records) == len(report.cited_sources())
    sorting, bisect = records[0], records[1]
    assert sorting["TY"] == ["GEN"] and sorting["TI"] == ["Sorting HOW TO"]
    assert sorting["AU"] == ["Dalke, Andrew", "Hettinger, Raymond"]
    assert (sorting["PY"], sorting["DO"]) == (["2021"], ["10.5555/pydocs.sorting"])
    assert "UR" not in sorting  # a DOI is its link
    assert bisect["TY"] == ["ELEC"] and bisect["UR"] == [f"{DOCS}library/bisect.html"]
    notes = records[-1]
    assert notes["DA"] == ["2024/03/04/"] and notes["L1"] == [
        "/home/ada/notes/itertools & recipes_v2.md"
    ]
    assert all(record["ER"] == [""] and next(iter(record)) == "TY" for record in records)


def dict_of(record: list[tuple[str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for tag, value in record:
        found.setdefault(tag, []).append(value)
    return found


def test_the_csl_json_items_have_the_schemas_fields(report: Report) -> None:
    items = json.loads(export(report, "csl.json"))
    assert len(items) == len(report.cited_sources())
    allowed = {"id", "citation-key", "type", "title", "author", "issued", "URL", "DOI",
               "container-title", "note"}  # fmt: skip
    for item in items:
        assert set(item) <= allowed and isinstance(item["id"], str) and item["title"]
        assert item["type"] in ("webpage", "document")
        for name in item.get("author", []):
            assert set(name) in ({"family", "given"}, {"family"}, {"literal"})
        for part in item.get("issued", {"date-parts": [[2000]]})["date-parts"][0]:
            assert isinstance(part, int)
    by_id = {item["id"]: item for item in items}
    assert by_id["dalke2021"]["DOI"] == "10.5555/pydocs.sorting"
    assert by_id["dalke2021"]["issued"] == {"date-parts": [[2021]]}
    assert by_id["sajip2020"]["author"][1] == {"family": "von Löwis", "given": "Martin"}
    assert by_id["lovelace2024"]["issued"] == {"date-parts": [[2024, 3, 4]]}
    bisect = by_id["bisectarray"]
    assert (bisect["type"], bisect["URL"]) == ("webpage", f"{DOCS}library/bisect.html")
    assert bisect["container-title"] == "docs.python.org"


def test_a_thread_is_one_section_per_turn_each_with_its_own_sources(report: Report) -> None:
    second = Report(
        topic="And how do I keep a heap?",
        markdown="# Heaps\n\n## In short\n\nHeaps are binary trees [1].\n\n## Sources\n\n1. x\n",
        summary="",
        sources=[report.sources[2].model_copy(update={"number": 1})],  # heapq, renumbered
        stats=RunStats(),
        thread_id=report.thread_id,
        citations=[
            Citation(
                sentence="Heaps are binary trees",
                number=1,
                url=report.sources[2].url,
                passage=1,
                start=0,
                end=22,
                quote="Heaps are binary trees",
                support=1.0,
            )
        ],
    )
    thread = [report, second]
    pdf = read_pdf(export(thread, "pdf"))
    assert flat(report.topic) in flat(pdf.text) and flat(second.topic) in flat(pdf.text)
    assert pdf.text.count("Sources") == 2
    word = read_docx(export(thread, "docx"))
    assert ("Heading 1", report.topic) in word.headings
    assert ("Heading 1", second.topic) in word.headings
    assert ("Heading 2", "Heaps") in word.headings and ("Heading 3", "In short") in word.headings
    assert "t2_evidence0" in word.bookmarks and "t1_evidence0" in word.bookmarks
    odt = read_odt(export(thread, "odt"))
    assert (1, second.topic) in odt.headings and (2, "Heaps") in odt.headings
    # A source cited in both turns is one entry of the bibliography.
    assert len(read_bibtex(export(thread, "bib")).entries) == len(report.cited_sources())
    markdown = export(thread, "md").decode()
    assert markdown == f"{report.markdown.rstrip()}\n\n---\n\n{second.markdown.rstrip()}\n"
    page = export(thread, "html").decode()  # as the page shows a thread: ids of each turn's
    assert 'id="source-1"' in page and 'id="turn-2-source-1"' in page
    assert 'href="#turn-2-source-1"' in page and "<q>And how do I keep a heap?</q>" in page
    # Its second question failed and has no report: the third keeps its number.
    third = second.model_copy(update={"turn": 3})
    page = export([report.model_copy(update={"turn": 1}), third], "html").decode()
    assert "Follow-up 3:" in page and 'id="turn-3-source-1"' in page and "turn-2" not in page
    word = read_docx(export([report, third], "docx"))
    assert "t3_evidence0" in word.bookmarks and "t2_evidence0" not in word.bookmarks


def test_a_report_built_to_break_each_format_exports_as_text() -> None:
    hostile = hostile_report()
    passwd = Path("/etc/passwd").read_text(encoding="utf-8").split(":")[0] + ":x:0:0"
    outputs = {name: export(hostile, name) for name in NAMES}
    for name, data in outputs.items():
        assert passwd.encode() not in data, name
        assert b"javascript:" not in data or name in ("md", "html", "bib", "ris", "csl.json")
    pdf = read_pdf(outputs["pdf"])
    assert flat('#read("/etc/passwd")') in flat(pdf.text) and "@preview" in pdf.text
    assert flat("\\end{document}") in flat(pdf.text) and "injected" in flat(pdf.text)
    assert flat("a" * 600) in flat(pdf.text)  # broken across lines, all of it
    assert "row 200" in pdf.text and pdf.pages > 3
    assert not any("javascript" in uri for uri in pdf.uris)
    word = read_docx(outputs["docx"])
    assert "</w:t></w:r><w:r><w:t>injected</w:t>" in word.text
    assert len(word.tables[0].rows) == 201 and "javascript" not in " ".join(word.links)
    odt = read_odt(outputs["odt"])
    assert "<text:p>odt</text:p>" in odt.text and odt.table_rows == [201]
    assert not any("javascript" in link for link in odt.links)
    library = read_bibtex(outputs["bib"])
    [entry] = library.entries
    # Every character back as written (pylatexenc reads \textasciicircum as the accent).
    assert entry.fields_dict["title"].value == HOSTILE[2].replace("^", "ˆ")
    assert entry.fields_dict["year"].value == "2021" and "month" not in entry.fields_dict
    assert "{Smith and Sons}" in outputs["bib"].decode()  # one author, not two
    [record] = read_ris(outputs["ris"])
    assert ("TI", " ".join(HOSTILE[2].split())) in record
    [item] = json.loads(outputs["csl.json"])
    assert "URL" not in item and item["title"] == " ".join(HOSTILE[2].split())
    page = outputs["html"].decode()
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_a_long_word_gets_places_to_break_but_a_link_stays_whole() -> None:
    from ponder.interfaces.exports.pdf import ZERO_WIDTH_SPACE, breakable

    assert breakable("short words stay") == "short words stay"
    broken = breakable("x" * 100)
    assert broken.replace(ZERO_WIDTH_SPACE, "") == "x" * 100 and broken.count(ZERO_WIDTH_SPACE) == 4
    assert re.fullmatch(r"(x{24}\u200b){4}x{4}", broken)


def test_an_address_with_a_control_character_or_half_a_surrogate_exports_in_every_format(
    report: Report,
) -> None:
    """A page's address as a search result may carry it: each format writes the report."""
    first = report.sources[0]
    odd = first.model_copy(update={"url": "https://e.x/a\x01b\ud800", "link": "https://d\x02.x"})
    report = report.model_copy(update={"sources": [odd, *report.sources[1:]]})
    outputs = {name: export(report, name) for name in NAMES}
    assert "https://e.x/ab" in " ".join(read_docx(outputs["docx"]).links)
    assert read_odt(outputs["odt"]).table_rows is not None  # the XML parses
    assert "https://e.x/ab" in read_pdf(outputs["pdf"]).text.replace("\n", "")
    assert any(e.fields_dict.get("url") for e in read_bibtex(outputs["bib"]).entries)


def test_a_table_inside_a_list_item_exports_in_every_format(report: Report) -> None:
    """A model may indent a table under a list item: OpenDocument has no table there."""
    table = (
        "1. Compare them:\n\n   | Module | What it offers |\n   |---|---|\n"
        "   | bisect | sorted lists |\n"
    )
    inside = report.model_copy(update={"markdown": table + "\n" + report.markdown})
    outputs = {name: export(inside, name) for name in NAMES}
    assert read_odt(outputs["odt"]).table_rows[0] == 2
    assert len(read_docx(outputs["docx"]).tables) >= 1
