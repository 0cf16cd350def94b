"""Indexing real documents (pydoc HTML and generated PDFs): parallel equals serial, and an
interrupted run keeps its work and resumes where it stopped."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.edges import cache_dir

import ponder.services.search.backends.local.indexer as indexer
import ponder.services.search.backends.local.reading as reading
from ponder.services.search.backends.local.index import LocalIndex
from ponder.testing.corpus import pdf_corpus, pydoc_html_corpus

MODULES = [
    "json", "csv", "heapq", "bisect", "shutil", "tempfile", "random", "statistics", "logging",
    "pickle", "configparser", "enum", "functools", "dataclasses", "base64", "uuid", "zipfile",
    "decimal", "itertools", "pathlib", "collections", "string", "textwrap", "struct", "copy",
    "tarfile", "gzip", "threading", "queue", "sched", "calendar", "glob", "fnmatch",
    "operator", "pprint", "difflib", "secrets", "hmac", "shelve", "argparse",
]  # fmt: skip


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("documents")
    assert len(pydoc_html_corpus(folder / "html", MODULES)) == len(MODULES)
    assert pdf_corpus(folder / "pdf", MODULES[:6], pages_each=3) >= 12
    return folder


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))


def contents(db: Path) -> list[tuple[object, ...]]:
    """Everything indexed, independent of row ids: file, title, hash, passage span and text."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT f.path, f.title, f.hash, f.skipped, c.start, c.end, c.page, p.body"
            " FROM files f LEFT JOIN chunks c ON c.file_id = f.id"
            " LEFT JOIN passages p ON p.rowid = c.id ORDER BY f.path, c.start"
        ).fetchall()


def build(documents: Path, db: Path, workers: int) -> indexer.IndexStats:
    local = LocalIndex([documents], db_path=db)
    try:
        return local.index(workers=workers)
    finally:
        local.close()


def test_parallel_indexing_gives_the_same_index_as_serial(documents: Path, tmp_path: Path) -> None:
    serial = build(documents, tmp_path / "serial.sqlite", workers=1)
    parallel = build(documents, tmp_path / "parallel.sqlite", workers=2)
    assert serial.workers == 1 and parallel.workers == 2
    assert serial.indexed == parallel.indexed == len(MODULES) + 6 and parallel.skipped == 0
    rows = contents(tmp_path / "serial.sqlite")
    assert rows == contents(tmp_path / "parallel.sqlite")
    assert any(page == 3 for *_, page, _body in rows)  # PDF passages know their page
    assert any("JSONDecoder" in str(body) for *_, body in rows)  # HTML text, not markup


def test_an_interrupted_run_keeps_what_it_indexed_and_the_next_one_finishes(
    documents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = indexer.Indexer._store
    calls = 0

    def interrupted_after_ten(self: indexer.Indexer, *args: object) -> None:
        nonlocal calls
        calls += 1
        if calls > 10:
            raise KeyboardInterrupt
        stored(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer.Indexer, "_store", interrupted_after_ten)
    db = tmp_path / "index.sqlite"
    with pytest.raises(KeyboardInterrupt):
        build(documents, db, workers=2)
    assert len({row[0] for row in contents(db)}) == 10  # committed, not lost
    monkeypatch.setattr(indexer.Indexer, "_store", stored)
    resumed = build(documents, db, workers=2)
    assert resumed.unchanged == 10 and resumed.indexed == len(MODULES) + 6 - 10
    build(documents, tmp_path / "fresh.sqlite", workers=1)
    assert contents(db) == contents(tmp_path / "fresh.sqlite")


def test_local_html_keeps_the_text_in_paragraphs_and_drops_page_furniture() -> None:
    from ponder.services.text.extraction import page_text

    markup = (
        "<html><head><title>T</title><style>p {color: red}</style></head><body>"
        "<header>Site banner</header><nav>Home · Index</nav>"
        "<div role='navigation'>Previous topic</div>"
        "<article><header><h1>json</h1></header>"
        "<p>The <a href='#'>json</a> module<br>reads &amp; writes <code>JSON</code>.</p>"
        "<dl><dt>dump(obj, fp)</dt><dd>Serialize obj to fp.</dd></dl></article>"
        "<script>track()</script><footer>© 2026</footer></body></html>"
    )
    assert page_text(markup) == (
        "json\n\nThe json module\nreads & writes JSON.\n\ndump(obj, fp)\n\nSerialize obj to fp."
    )


def test_an_encrypted_pdf_is_skipped_with_the_reason(tmp_path: Path) -> None:
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    from ponder.services.search.backends.local.indexes import index

    docs = tmp_path / "docs"
    docs.mkdir()
    secret = canvas.Canvas(
        str(docs / "secret.pdf"), encrypt=pdfencrypt.StandardEncryption("pw", canPrint=0)
    )
    secret.drawString(72, 720, "Tides are secret here.")
    secret.save()
    warnings: list[str] = []
    stats = index([docs], warn=warnings.append, cache_dir=cache_dir())
    assert stats.skipped == 1 and any("secret.pdf" in w and "encrypted" in w for w in warnings)


def test_ctrl_c_during_ponder_index_keeps_the_work_and_says_how_to_go_on(
    documents: Path, tmp_path: Path
) -> None:
    """A real SIGINT to the whole process group, as a terminal's Ctrl-C sends it."""
    docs = tmp_path / "docs"
    pages = sorted((documents / "html").iterdir())
    copies = 100  # more files than one batch: the first batch's commit shows indexing is on
    for copy in range(copies):
        (docs / f"copy{copy}").mkdir(parents=True)
        for page in pages:
            shutil.copy(page, docs / f"copy{copy}" / page.name)
    total = copies * len(pages)
    assert total > indexer._BATCH, "a batch is committed before the signal"
    env = {**os.environ, "PONDER_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "ponder", "index", str(docs)]
    run = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not list((tmp_path / "cache").glob("indexes/*.sqlite")):  # indexing has begun
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    while _files_stored(tmp_path / "cache") == 0:  # a first batch in, committed
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, (out, err)
    said = r"Interrupted after ([\d,]+) of ([\d,]+) files; what was indexed is kept"
    match = re.search(said, err)
    assert match, err
    kept = int(match.group(1).replace(",", ""))
    assert 0 < kept < total and int(match.group(2).replace(",", "")) == total
    assert "Traceback" not in err

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"{total - kept} new or changed, {kept} unchanged" in again.stdout


def _files_stored(cache: Path) -> int:
    """How many files the index in ``cache`` holds so far (read beside the writer)."""
    count = 0
    for db in cache.glob("indexes/*.sqlite"):
        with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(db)) as conn:
            count += conn.execute("SELECT count(*) FROM files").fetchone()[0]
    return count


def test_code_in_local_html_keeps_its_lines_and_indentation() -> None:
    from ponder.services.text.extraction import page_text

    markup = (
        "<body><p>Read a file:</p><pre><span class='k'>with</span> open(path) as f:\n"
        "    data = json.load(f)\n</pre><p>Then   use it.</p></body>"
    )
    assert page_text(markup) == (
        "Read a file:\n\nwith open(path) as f:\n    data = json.load(f)\n\nThen use it."
    )


REAL_EXTRACT = reading.extract


def crashing_extract(job: reading.Job) -> reading.Extracted:
    """A reader that takes its whole process down on one file, as a native crash would."""
    if job.path.endswith("json.html"):
        os._exit(1)
    return REAL_EXTRACT(job)


def test_a_file_that_kills_its_reader_process_costs_that_file_not_the_run(
    documents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reader is sent to the worker by name: the patched one, from this module.
    monkeypatch.setattr(reading, "extract", crashing_extract)
    warnings: list[str] = []
    local = LocalIndex([documents / "html"], db_path=tmp_path / "index.sqlite")
    try:
        stats = local.index(warn=warnings.append, workers=2)
    finally:
        local.close()
    assert any("json.html" in w and "parser crashed" in w for w in warnings), warnings
    assert stats.indexed == len(MODULES) - 1, "every other file is indexed"
    kept = {row[0] for row in contents(tmp_path / "index.sqlite") if row[3] is None}
    assert len(kept) == stats.indexed and not any(p.endswith("json.html") for p in kept)
