"""Realistic documents made at run time: the standard library's own pydoc pages.

Tests, the demo and the benchmarks research real technical text, not synthetic strings,
without shipping or downloading a corpus.
"""

from __future__ import annotations

import functools
import importlib
import pydoc
from collections.abc import Iterable
from html import escape
from pathlib import Path


def pydoc_corpus(folder: Path, modules: Iterable[str]) -> list[str]:
    """Write ``<module>.txt``, pydoc's plain-text page, for each importable module.

    Returns the modules written, in order; one that cannot be imported is left out.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in modules:
        text = pydoc_text(name)
        if text is not None:
            (folder / f"{name}.txt").write_text(text, encoding="utf-8")
            written.append(name)
    return written


@functools.cache  # rendering takes tens of milliseconds, and tests ask for json again and again
def pydoc_text(name: str) -> str | None:
    """pydoc's plain-text page of a module, or None when it cannot be imported or rendered."""
    try:
        module = importlib.import_module(name)
        return str(pydoc.render_doc(module, renderer=pydoc.plaintext))  # type: ignore[attr-defined]
    except Exception:  # an odd module must not stop a corpus
        return None


# Modules that act when imported (open a browser, print, start a GUI) or are test suites.
_NOT_RENDERED = ("antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test")


def stdlib_modules(with_submodules: bool = True) -> list[str]:
    """Names of the standard library's public modules (and their submodules), sorted."""
    import pkgutil
    import sys

    names = sorted(
        n for n in sys.stdlib_module_names if not n.startswith("_") and n not in _NOT_RENDERED
    )
    found = []
    for name in names:
        found.append(name)
        if not with_submodules:
            continue
        try:
            package = importlib.import_module(name)
        except Exception:  # platform-specific modules fail in many ways
            continue
        for info in pkgutil.walk_packages(getattr(package, "__path__", []), f"{name}."):
            leaf = info.name.rsplit(".", 1)[1]
            if not leaf.startswith("_") and "test" not in info.name.split("."):
                found.append(info.name)
    return found


def pydoc_html_corpus(folder: Path, modules: Iterable[str]) -> list[str]:
    """Write ``<module>.html``, the page pydoc's HTML renderer makes, for each module that
    imports cleanly; returns the modules written."""
    import contextlib
    import io

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in modules:
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                module = importlib.import_module(name)
                page = pydoc.html.page(pydoc.describe(module), pydoc.html.document(module, name))
        except Exception:  # an odd module must not stop the corpus
            continue
        (folder / f"{name}.html").write_text(page, encoding="utf-8")
        written.append(name)
    return written


def pdf_corpus(folder: Path, modules: Iterable[str], pages_each: int = 8) -> int:
    """Write ``<module>.pdf``: pydoc's text of each module typeset as a real document is, in
    justified paragraphs of an embedded TrueType font with headings (reportlab), up to
    ``pages_each`` A4 pages. Returns the pages written."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))  # shipped with reportlab
    pdfmetrics.registerFont(TTFont("VeraBd", "VeraBd.ttf"))
    styles = getSampleStyleSheet()
    body = styles["BodyText"].clone("body", fontName="Vera", fontSize=10, alignment=4)
    heading = styles["Heading2"].clone("heading", fontName="VeraBd")
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in modules:
        text = pydoc_text(name)
        if text is None:
            continue
        story = []
        for block in text.split("\n\n"):
            words = " ".join(block.replace("|", " ").split())
            if words:
                style = heading if words.isupper() and len(words) < 40 else body
                story.append(Paragraph(escape(words), style))
        document = SimpleDocTemplate(str(folder / f"{name}.pdf"), pagesize=A4, title=name)
        document.build(story[: 12 * pages_each])  # about a dozen paragraphs fill a page
        total += document.page
    return total
