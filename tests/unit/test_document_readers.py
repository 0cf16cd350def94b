"""The readers' hard limits: zip containers, XML entities, spreadsheets' repeats, files that
are not files, and links swapped in after a folder was walked."""

from __future__ import annotations

import contextlib
import io
import os
import zipfile
from pathlib import Path

import pytest

from ponder.services.search.backends.local import reading
from ponder.services.search.backends.local.files import discover
from ponder.services.search.backends.local.formats import SkipFile, read_document
from ponder.services.search.backends.local.formats.container import MAX_MEMBERS, Zipped
from ponder.services.search.backends.local.index import LocalIndex

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx(document: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    """A DOCX package with ``document`` as its main part."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("word/document.xml", document)
        for name, data in (extra or {}).items():
            package.writestr(name, data)
    return buffer.getvalue()


def paragraph_xml(*texts: str) -> bytes:
    body = "".join(f"<w:p><w:r><w:t>{t}</w:t></w:r></w:p>" for t in texts)
    return f'<w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>'.encode()


def test_a_docx_is_read_in_order_with_its_tables_and_footnotes() -> None:
    table = (
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Tide</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p><w:r><w:t>Height</w:t></w:r></w:p></w:tc></w:tr>"
        "<w:tr><w:tc><w:p><w:r><w:t>spring</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p><w:r><w:t>high</w:t><w:tab/><w:t>ish</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    )
    deleted = "<w:p><w:del><w:r><w:delText>withdrawn</w:delText></w:r></w:del></w:p>"
    body = (
        f'<w:document xmlns:w="{W}"><w:body>'
        '<w:p><w:pPr><w:pStyle w:val="Title"/><w:tabs><w:tab w:val="left"/></w:tabs></w:pPr>'
        "<w:r><w:t>Notes on tides</w:t></w:r></w:p>"
        f"{table}{deleted}<w:p><w:r><w:t>The end.</w:t></w:r></w:p></w:body></w:document>"
    ).encode()
    document = read_document(".docx", docx(body), "file")
    assert document.title == "Notes on tides"
    assert document.text == "Notes on tides\n\nTide | Height\n\nspring | high ish\n\nThe end."


def test_a_zip_with_too_many_members_is_refused_unread() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        for number in range(MAX_MEMBERS + 1):
            package.writestr(f"m{number}", b"")
    with pytest.raises(SkipFile, match="members"):
        Zipped(buffer.getvalue(), "DOCX")


def test_a_member_that_inflates_a_thousandfold_is_a_bomb() -> None:
    spaces = b" " * (8 << 20)  # 8 MB that deflate to a few KB
    with pytest.raises(SkipFile, match=r"a zip bomb: word/document\.xml would inflate"):
        read_document(".docx", docx(spaces), "bomb")


def test_a_member_that_says_it_is_small_but_inflates_more_fails_its_check() -> None:
    """zipfile inflates a member no further than its declared size: a lie is a bad CRC."""
    package = bytearray(docx(paragraph_xml("honest " * 500)))
    info = zipfile.ZipFile(io.BytesIO(bytes(package))).getinfo("word/document.xml")
    smaller = (info.file_size // 2).to_bytes(4, "little")
    for offset in (info.header_offset + 22, bytes(package).rindex(b"PK\x01\x02") + 24):
        package[offset : offset + 4] = smaller  # the local header's and the directory's
    with pytest.raises(SkipFile, match="not a readable DOCX"):
        read_document(".docx", bytes(package), "liar")


def test_xml_that_declares_entities_is_refused_before_any_expansion() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        b'<w:document xmlns:w="' + W.encode() + b'"><w:body>&b;</w:body></w:document>'
    )
    with pytest.raises(SkipFile, match="declares XML entities"):
        read_document(".docx", docx(laughs), "laughs")
    external = (
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d>&x;</d>'
    )
    with pytest.raises(SkipFile, match="refused"):
        read_document(".docx", docx(external), "external")


def ods(content: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        package.writestr("content.xml", content)
    return buffer.getvalue()


def test_a_spreadsheets_repeats_are_written_once_not_a_million_times() -> None:
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
    )
    cell = '<table:table-cell office:value-type="string"><text:p>{}</text:p></table:table-cell>'
    content = (
        f"<office:document-content {ns}><office:body><office:spreadsheet>"
        '<table:table table:name="Tides">'
        f"<table:table-row>{cell.format('Port')}{cell.format('Range')}</table:table-row>"
        f"<table:table-row>{cell.format('Brest')}{cell.format('7 m')}"
        '<table:table-cell table:number-columns-repeated="16382"/></table:table-row>'
        '<table:table-row table:number-rows-repeated="1048574">'
        '<table:table-cell table:number-columns-repeated="1000000" office:value-type="float" '
        'office:value="1"/></table:table-row>'
        "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    document = read_document(".ods", ods(content), "tides")
    assert document.text.startswith("Sheet: Tides\nPort | Range\nPort: Brest; Range: 7 m\n")
    assert len(document.text) < 2_000 and document.part == "sheet"


def test_an_xlsx_shows_dates_as_dates_and_shared_strings_as_text(tmp_path: Path) -> None:
    import datetime

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Observations"
    sheet.append(["Port", "Day", "Height"])
    sheet.append(["Brest", datetime.date(2024, 3, 10), 7.2])
    book.save(tmp_path / "tides.xlsx")
    document = read_document(".xlsx", (tmp_path / "tides.xlsx").read_bytes(), "tides")
    assert "Port: Brest; Day: 2024-03-10; Height: 7.2" in document.text


def test_a_named_pipe_is_skipped_unopened_and_the_folder_indexed(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tides.md").write_text("# Tides\n\nSpring tides follow the Moon.\n", "utf-8")
    os.mkfifo(folder / "notes.txt")  # read with open(), it would never end
    local = LocalIndex([folder], db_path=tmp_path / "index.sqlite")
    try:
        stats = local.index()
        again = local.index()
    finally:
        local.close()
    assert stats.indexed == 1 and stats.skipped_files == [
        (str(folder / "notes.txt"), "not a regular file (a named pipe, a socket or a device)")
    ]
    assert again.indexed == 0 and again.skipped == 1


def test_a_link_swapped_in_after_the_walk_is_not_read(tmp_path: Path) -> None:
    folder, outside = tmp_path / "shared", tmp_path / "private"
    folder.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("the zeppelin launch codes\n", "utf-8")
    notes = folder / "notes.txt"
    notes.write_text("harmless notes\n", "utf-8")
    walked = discover([folder])
    notes.unlink()
    notes.symlink_to(outside / "secret.txt")  # between the walk and the read
    local = LocalIndex([folder], db_path=tmp_path / "index.sqlite")
    local._discover = lambda warn=None: walked  # type: ignore[assignment,method-assign]
    try:
        stats = local.index()
        found = local.search("zeppelin launch codes", 5)
    finally:
        local.close()
    assert found == [] and stats.indexed == 0
    assert stats.skipped_files == [(str(notes), stats.skipped_files[0][1])]
    assert "leads out of its folder" in stats.skipped_files[0][1]


def test_a_file_is_read_no_further_than_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "growing.txt"
    path.write_bytes(b"a" * 10)
    job = reading.Job(str(path), (0, 10), None, max_bytes=16)
    assert reading.read_bytes(job) == b"a" * 10
    path.write_bytes(b"a" * 100)  # grew after it was found
    with pytest.raises(SkipFile, match="larger than"):
        reading.read_bytes(job)


def test_the_docs_table_of_formats_is_the_readers_own() -> None:
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "document_formats", root / "scripts" / "document_formats.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0, "run `python scripts/document_formats.py`"


def test_a_file_read_again_with_the_same_text_keeps_its_passages_and_their_vectors(
    tmp_path: Path,
) -> None:
    """Newer readers read every file once more (new metadata); a file whose text is the
    same keeps its passages, so nothing embedded from them is lost."""
    import sqlite3

    folder = tmp_path / "notes"
    folder.mkdir()
    note = folder / "tides.md"
    note.write_text("---\ntitle: Tides\nauthor: Ada\n---\n# Tides\n\nThe Moon pulls.\n", "utf-8")
    db = tmp_path / "index.sqlite"

    def chunks() -> list[tuple[int, str]]:
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "SELECT c.id, f.title FROM chunks AS c JOIN files AS f ON f.id = c.file_id"
            ).fetchall()

    local = LocalIndex([folder], db_path=db)
    local.index()
    local.close()
    before = chunks()
    with sqlite3.connect(db) as conn:  # as an index older readers wrote
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'readers'")
        conn.execute("UPDATE files SET title = 'tides', authors = NULL")
    local = LocalIndex([folder], db_path=db)
    try:
        again = local.index()
        [hit] = local.search("Moon", 1)
    finally:
        local.close()
    assert again.indexed == 0 and again.unchanged == 1
    assert chunks() == before and hit.title == "Tides" and hit.authors == ["Ada"]
    note.write_bytes(b"\xef\xbb\xbf" + note.read_bytes())  # other bytes, the same text
    local = LocalIndex([folder], db_path=db)
    try:
        assert local.index().indexed == 0
    finally:
        local.close()
    assert chunks() == before


def test_a_member_packed_with_bzip2_is_refused_before_it_inflates() -> None:
    """zipfile bounds deflate's output as it inflates, not bzip2's or LZMA's."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as package:
        package.writestr("word/document.xml", paragraph_xml("tides"))
    with pytest.raises(SkipFile, match="packed with a method these files never use"):
        read_document(".docx", buffer.getvalue(), "packed")


def test_a_sheet_whose_cells_name_no_column_keeps_every_cell(tmp_path: Path) -> None:
    """ECMA-376 makes a cell's reference optional: such a cell is the next one."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    cells = (
        '<c t="inlineStr"><is><t>Name</t></is></c><c t="inlineStr"><is><t>City</t></is></c>',
        '<c t="inlineStr"><is><t>Ada</t></is></c><c t="inlineStr"><is><t>London</t></is></c>',
    )
    rows = "".join(f"<row>{c}</row>" for c in cells)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr(
            "xl/workbook.xml",
            f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>'
            '<sheet name="People" sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        package.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
            "</Relationships>",
        )
        package.writestr(
            "xl/worksheets/sheet1.xml",
            f'<worksheet xmlns="{main}"><sheetData>{rows}</sheetData></worksheet>',
        )
    document = read_document(".xlsx", buffer.getvalue(), "people")
    assert "Name: Ada; City: London" in document.text


def test_readers_stay_linear_on_lines_built_to_make_patterns_backtrack() -> None:
    """Each of these took seconds to minutes with a backtracking pattern; a reader must not
    spend its whole deadline on one line of a file."""
    import time

    hostile = {
        ".org": "[" * 200_000 + "\n#+AUTHOR: a" + " " * 200_000 + "b\n* Tides\n",
        ".tex": "\\title"
        + " " * 200_000
        + "x\n"
        + "".join(f"\\verb{chr(0xE000 + i)}x " for i in range(20_000)),
    }
    for suffix, text in hostile.items():
        started = time.perf_counter()
        with contextlib.suppress(SkipFile):
            read_document(suffix, text.encode(), "hostile")
        assert time.perf_counter() - started < 10, suffix  # quadratic: many minutes


def test_a_file_swapped_for_a_named_pipe_after_the_walk_is_skipped_unblocked(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    notes = folder / "notes.txt"
    notes.write_text("harmless notes\n", "utf-8")
    walked = discover([folder])
    notes.unlink()
    os.mkfifo(notes)
    local = LocalIndex([folder], db_path=tmp_path / "index.sqlite")
    local._discover = lambda warn=None: walked  # type: ignore[assignment,method-assign]
    try:
        stats = local.index()
    finally:
        local.close()
    assert stats.skipped_files == [
        (str(notes), "not a regular file (a named pipe, a socket or a device)")
    ]
