"""Your documents in the formats people keep them in: pages of the Python docs written at
run time by pandoc (DOCX, ODT, EPUB, PPTX, notebooks, LaTeX, Org, Markdown with front
matter), by nbformat (a notebook whose examples carry their outputs), by openpyxl and odfpy
(the pages' tables as spreadsheets). Each is found by the questions that find its HTML
original, with the title, authors and date its own metadata gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ponder.services.search.backends.local.index import LocalIndex
from ponder.testing import formats
from ponder.testing.faq import Question, faq_questions
from ponder.testing.pydocs import html_root

ROOT = Path(__file__).resolve().parents[2]
# One worker builds the documents once (pandoc), and runs every test that reads them.
pytestmark = pytest.mark.xdist_group("formats")
TOP = 3
# The readers whose documents carry pandoc's title, author and date as their own metadata
# (for DOCX, ODT and PPTX, pandoc records when it wrote the file as the date).
DATED = {".epub", ".tex", ".org", ".md"}
WITH_AUTHOR = {".docx", ".odt", ".epub", ".pptx", ".tex", ".org", ".md"}


# Session-wide: under xdist a worker runs other modules' tests between these, and a module's
# fixtures would be built again each time it came back.
@pytest.fixture(scope="session")
def docs() -> Path:
    return Path(html_root(ROOT / ".cache"))


@pytest.fixture(scope="session")
def questions(docs: Path) -> list[Question]:
    """The FAQ's questions whose answer links one library page, twelve of them."""
    single = [q for q in faq_questions(docs) if len(q.pages) == 1]
    chosen: list[Question] = []
    for question in sorted(single, key=lambda q: q.text):
        exists = (docs / "library" / f"{question.pages[0]}.html").exists()
        if exists and all(q.pages != question.pages for q in chosen):
            chosen.append(question)
    return chosen[:12]


@pytest.fixture(scope="session")
def written(
    docs: Path, questions: list[Question], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """The answer pages in every format pandoc writes, and as HTML: a folder each."""
    pages = [f"library/{q.pages[0]}" for q in questions]
    folder = tmp_path_factory.mktemp("formats")
    return formats.write_corpus(docs, pages, folder, [".html", *formats.PANDOC], workers=2)


def found(folder: Path, questions: list[Question], db: Path) -> set[str]:
    local = LocalIndex([folder], db_path=db)
    try:
        stats = local.index()
        assert stats.skipped == 0 and stats.indexed == len(list(folder.iterdir())), stats
        return {
            q.text
            for q in questions
            if f"library-{q.pages[0]}" in {Path(h.url).stem for h in local.search(q.text, TOP)}
        }
    finally:
        local.close()


def test_the_same_questions_find_the_same_answer_pages_in_every_format(
    written: dict[str, Path], questions: list[Question], tmp_path: Path
) -> None:
    original = found(written[".html"], questions, tmp_path / "original.sqlite")
    assert len(original) >= len(questions) // 2, "the HTML originals find most"
    for suffix, folder in written.items():
        assert found(folder, questions, tmp_path / f"{suffix[1:]}.sqlite") == original, suffix


def test_each_format_keeps_its_title_authors_and_date_for_citations(
    written: dict[str, Path], docs: Path, questions: list[Question], tmp_path: Path
) -> None:
    page = formats.original(docs, f"library/{questions[0].pages[0]}")
    for suffix, folder in written.items():
        local = LocalIndex([folder], db_path=tmp_path / f"{suffix[1:]}.sqlite")
        try:
            local.index()
            hit = next(h for h in local.search(page.title, 10) if page.stem in h.url)
        finally:
            local.close()
        assert " ".join(hit.title.replace("---", "—").split()) == page.title, suffix
        assert hit.authors == ([formats.AUTHOR] if suffix in WITH_AUTHOR else []), suffix
        if suffix in DATED:
            assert hit.date == page.date, suffix


def test_a_deck_a_book_and_a_workbook_locate_passages_by_slide_chapter_and_sheet(
    written: dict[str, Path], docs: Path, tmp_path: Path
) -> None:
    stdtypes = formats.original(docs, "library/stdtypes")
    sheets = {
        ".xlsx": formats.write_xlsx(stdtypes, tmp_path / "xlsx"),
        ".ods": formats.write_ods(stdtypes, tmp_path / "ods"),
    }
    for suffix, path in sheets.items():
        local = LocalIndex([path.parent], db_path=tmp_path / f"{suffix[1:]}.sqlite")
        try:
            local.index()
            [hit] = local.search("floored quotient of x and y", 1)
        finally:
            local.close()
        # A row under its table's header says what each cell is.
        assert "Operation: x // y; Result: floored quotient of x and y" in hit.text, suffix
        assert hit.location and hit.location.startswith("sheet "), suffix
        assert hit.title == stdtypes.title and hit.authors == [formats.AUTHOR]
    for suffix, part in ((".pptx", "slide "), (".epub", "chapter ")):
        local = LocalIndex([written[suffix]], db_path=tmp_path / f"{suffix[1:]}.sqlite")
        try:
            local.index()
            hits = local.search("random numbers", 3)
        finally:
            local.close()
        assert hits and all(h.location and h.location.startswith(part) for h in hits), suffix


def test_a_notebook_keeps_what_its_examples_printed(docs: Path, tmp_path: Path) -> None:
    from ponder.services.search.backends.local.formats import read_document

    page = formats.original(docs, "library/json")
    path = formats.write_notebook(page, tmp_path)
    document = read_document(".ipynb", path.read_bytes(), path.stem)
    shown = [output for _, output in formats.examples(page) if output.strip()]
    assert len(shown) >= 5
    for output in shown:
        assert output.strip() in document.text
    assert document.title == page.title and document.authors == [formats.AUTHOR]


@pytest.fixture(scope="session")
def attacks(written: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Documents built to hurt a reader, made once: zip bombs (a gigabyte each, deflated:
    seconds to write), a billion-laughs DOCX, a notebook with a 100 MB output."""
    from support.hostile_documents import entity_bomb, huge_output_notebook, replaced

    folder = tmp_path_factory.mktemp("attacks")
    a_docx = next(written[".docx"].iterdir())
    a_epub = next(written[".epub"].iterdir())
    replaced(a_docx, "word/document.xml", folder / "bomb.docx")
    replaced(a_epub, "EPUB/text/ch001.xhtml", folder / "bomb.epub")
    w = b'w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    entity_bomb(a_docx, "word/document.xml", folder / "laughs.docx", w)
    huge_output_notebook(folder / "log.ipynb")
    return folder


@pytest.fixture
def hostile_folder(written: dict[str, Path], attacks: Path, tmp_path: Path) -> Iterator[Path]:
    """Real documents beside documents built to hurt a reader: zip bombs, entities, a huge
    notebook, a named pipe, a link to a private file."""
    import os
    import shutil

    folder = tmp_path / "papers"
    folder.mkdir()
    for suffix in (".docx", ".epub", ".odt", ".html"):
        for path in sorted(written[suffix].iterdir())[:2]:
            (folder / path.name).write_bytes(path.read_bytes())
    for attack in attacks.iterdir():
        shutil.copyfile(attack, folder / attack.name)
    os.mkfifo(folder / "notes.txt")
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)
    secret = tmp_path / "private" / "passwords.md"
    secret.parent.mkdir()
    secret.write_text("# Passwords\n\nThe vault opens with 4711.\n", "utf-8")
    (folder / "minutes.md").symlink_to(secret)  # a link out of the folder
    yield folder


SKIPPED = {
    "bomb.docx": "a zip bomb",
    "bomb.epub": "a zip bomb",
    "laughs.docx": "declares XML entities",
    "log.ipynb": "larger than 64 MB",
    "notes.txt": "not a regular file",
    "minutes.md": "a link that leads out of its folder",
}


def test_hostile_documents_are_skipped_each_with_its_reason_and_nothing_else_is_lost(
    hostile_folder: Path, tmp_path: Path
) -> None:
    local = LocalIndex([hostile_folder], db_path=tmp_path / "index.sqlite")
    try:
        stats = local.index()
        status = local.status()
    finally:
        local.close()
    reasons = {Path(path).name: why for path, why in stats.skipped_files}
    assert set(reasons) == set(SKIPPED)
    for name, why in SKIPPED.items():
        assert why in reasons[name], (name, reasons[name])
    assert stats.indexed == 8 and stats.unknown_types == {".jpg": 1}
    assert {Path(p).name for p, _ in status.skipped} == set(SKIPPED)
    assert status.unknown_types == {".jpg": 1}


def test_a_served_process_answers_within_a_second_while_it_indexes_them(
    hostile_folder: Path, rig: object, tmp_path: Path
) -> None:
    import time

    import httpx
    from support import UiServer

    env = {
        "PONDER_DATA_DIR": str(tmp_path / "data"),
        "PONDER_CACHE_DIR": str(tmp_path / "cache"),
        "PONDER_MODEL": "scripted",
        "PONDER_OLLAMA_BASE_URL": rig.url,  # type: ignore[attr-defined]
        "PONDER_DOCS_ROOTS": str(hostile_folder),
    }
    server = UiServer(env).start()
    try:
        headers = {"origin": server.url, "accept": "application/json"}
        started = httpx.post(
            server.url + "/documents", data={"path": str(hostile_folder)}, headers=headers
        )
        job = started.json()["job"]
        slowest, view = 0.0, {}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            began = time.perf_counter()
            assert httpx.get(server.url + "/api/models", timeout=5).status_code == 200
            slowest = max(slowest, time.perf_counter() - began)
            view = httpx.get(server.url + f"/documents/jobs/{job}", timeout=5).json()
            if view["finished"]:
                break
            time.sleep(0.2)
        assert view["finished"] and view["error"] is None, view
        assert view["result"]["skipped"] == len(SKIPPED) and view["result"]["indexed"] == 8
        assert slowest < 1.0, f"another request waited {slowest:.2f}s"
        page = httpx.get(server.url + "/documents", timeout=5).text
        for name in SKIPPED:
            assert name in page, name
    finally:
        assert server.stop() == 0
