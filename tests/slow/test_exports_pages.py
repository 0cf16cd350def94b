"""The PDF export as a second reader sees it: Debian's poppler (pdftoppm, installed by
`make test`) turns each page of three reports into an image without a complaint — the
deep pipeline's twenty-source report over the Python docs, the docs report with its table
and library papers, and the report built to break each format. The images are kept in
``test-output/`` (export-*.png) to be looked at."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support import python_docs
from support.exported import read_pdf
from support.reports import deep_report, docs_corpus, docs_report, hostile_report

from ponder import export
from ponder.testing import Rig, ScriptedBackend

OUTPUT = Path(__file__).resolve().parents[2] / "test-output"
PDFTOPPM = shutil.which("pdftoppm") or "/usr/bin/pdftoppm"


def pages_as_images(data: bytes, name: str) -> list[Path]:
    """Each page of the PDF as a PNG in test-output/, by poppler; it must say nothing."""
    if not Path(PDFTOPPM).exists():
        pytest.fail(f"pdftoppm is not installed at {PDFTOPPM}: `make test` installs it.")
    OUTPUT.mkdir(exist_ok=True)
    for old in OUTPUT.glob(f"export-{name}-*.png"):
        old.unlink()
    source = OUTPUT / f"export-{name}.pdf"
    source.write_bytes(data)
    done = subprocess.run(
        [PDFTOPPM, "-r", "70", "-png", str(source), str(OUTPUT / f"export-{name}")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return sorted(OUTPUT.glob(f"export-{name}-*.png"))


def assert_pages_drawn(images: list[Path], pages: int) -> None:
    from PIL import Image

    assert len(images) == pages
    for image in images:
        with Image.open(image) as picture:
            darkest, lightest = picture.convert("L").getextrema()
        assert lightest > 240 and darkest < 80, image  # white paper with text on it


def test_the_deep_reports_pdf_pages_are_drawn_by_poppler(
    rig: Rig, scripted: ScriptedBackend, tmp_path: Path
) -> None:
    report = deep_report(rig, scripted, docs_corpus(python_docs(), tmp_path / "docs"))
    assert len(report.cited_sources()) >= 20
    data = export(report, "pdf")
    assert_pages_drawn(pages_as_images(data, "deep"), read_pdf(data).pages)


def test_the_docs_and_hostile_reports_pdf_pages_are_drawn_by_poppler() -> None:
    for name, report in (("docs", docs_report(python_docs())), ("hostile", hostile_report())):
        data = export(report, "pdf")
        assert_pages_drawn(pages_as_images(data, name), read_pdf(data).pages)
