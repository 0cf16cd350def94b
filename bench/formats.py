"""Your documents in every format: do the same questions find the same answer pages?

Sixty pages of Debian's python3.11-doc are written, at run time, by pandoc as DOCX, ODT,
EPUB, PPTX, Jupyter notebooks, LaTeX, Org and Markdown with front matter
(``ponder.testing.formats``), beside the pages' own HTML. The questions are the Python
FAQ's (``ponder.testing.faq``: written by people for another purpose) whose answer links one
library page: the first twelve (by a hash of their text) give their answer pages, and the
library pages other FAQ answers link fill the corpus to sixty. Each format's folder is
indexed as ``ponder index`` does, and each question searched as a run's first query is
(the question itself, the three best files): the answer page within them, per format,
against the HTML originals. Also each format's indexing rate, and what was skipped.

Target (issue 43): every format finds the answer pages the HTML originals find.

Run: ``python bench/formats.py``; ``bench/run.py`` runs it as part of ``make bench``.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path
from typing import Any

from workspace import ROOT

PAGES = 60
QUESTIONS = 12
TOP = 3


def corpus_plan(root: Path) -> tuple[list[Any], list[str]]:
    """The questions and the pages ("library/json"…): their answer pages first."""
    from ponder.testing.faq import faq_questions

    single = [q for q in faq_questions(root) if len(q.pages) == 1]
    single.sort(key=lambda q: hashlib.sha1(q.text.encode()).hexdigest())
    chosen, pages = [], []
    for question in single:
        page = f"library/{question.pages[0]}"
        if page not in pages and (root / f"{page}.html").exists() and len(chosen) < QUESTIONS:
            chosen.append(question)
            pages.append(page)
    # Then the pages other answers link, then the library's other pages (by a hash of
    # their names), to sixty.
    linked = [f"library/{page}" for q in faq_questions(root) for page in q.pages]
    others = sorted(
        (f"library/{p.stem}" for p in (root / "library").glob("*.html")),
        key=lambda name: hashlib.sha1(name.encode()).hexdigest(),
    )
    for page in [*linked, *others]:
        if page not in pages and (root / f"{page}.html").exists() and len(pages) < PAGES:
            pages.append(page)
    return chosen, pages


def found_at(folder: Path, questions: list[Any]) -> dict[str, Any]:
    """Index ``folder``; the questions whose answer page is among the TOP files found."""
    from ponder.services.search.backends.local.index import LocalIndex

    with tempfile.TemporaryDirectory() as work:
        local = LocalIndex([folder], db_path=Path(work) / "index.sqlite")
        try:
            stats = local.index()
            found = []
            for question in questions:
                hits = local.search(question.text, TOP)
                stems = {Path(hit.url).stem for hit in hits}
                if f"library-{question.pages[0]}" in stems:
                    found.append(question.text)
            titled = sum(1 for hit in local.search("module", 60) if hit.title)
        finally:
            local.close()
    return {
        "files": stats.files,
        "indexed": stats.indexed,
        "skipped": stats.skipped,
        "found": found,
        "index_seconds": round(stats.seconds, 2),
        "files_per_s": round(stats.indexed / stats.seconds, 1) if stats.seconds else 0.0,
        "titled_results": titled,
    }


def run_formats_bench(log: Any = None) -> dict[str, Any]:
    from ponder.testing.formats import PANDOC, write_corpus
    from ponder.testing.pydocs import html_root

    root = Path(html_root(ROOT / ".cache"))
    questions, pages = corpus_plan(root)
    with tempfile.TemporaryDirectory(prefix="ponder-formats-") as work:
        started = time.perf_counter()
        folders = write_corpus(root, pages, Path(work), [".html", *PANDOC])
        written = round(time.perf_counter() - started, 1)
        per_format = {}
        for suffix, folder in folders.items():
            per_format[suffix.lstrip(".")] = found_at(folder, questions)
            if log:
                row = per_format[suffix.lstrip(".")]
                log(f"formats {suffix}: {len(row['found'])}/{len(questions)} @ {TOP}")
    html = set(per_format["html"]["found"])
    for row in per_format.values():
        row["found_at_3"] = len(row["found"])
        row["same_as_html"] = set(row["found"]) >= html
        row["lost"] = sorted(html - set(row["found"]))
    return {
        "pages": len(pages),
        "questions": len(questions),
        "written_in_s": written,
        "formats": per_format,
        "targets": {
            "every_format_finds_what_html_finds": all(
                row["same_as_html"] for row in per_format.values()
            )
        },
    }


NAMES = {
    "html": "HTML (the originals)",
    "docx": "Word (DOCX)",
    "odt": "OpenDocument text (ODT)",
    "epub": "EPUB",
    "pptx": "PowerPoint (PPTX)",
    "ipynb": "Jupyter notebook",
    "tex": "LaTeX",
    "org": "Org",
    "md": "Markdown with front matter",
}


def formats_table(results: dict[str, Any]) -> list[str]:
    """docs/benchmarks.md's table: each format's answer pages found, rate and skips."""
    from render import table

    f = results["formats"]
    rows = [
        [
            NAMES.get(name, name),
            f"{row['found_at_3']} / {f['questions']}"
            + ("" if name == "html" else (" ✓" if row["same_as_html"] else " ✗")),
            row["files_per_s"],
            row["skipped"],
        ]
        for name, row in f["formats"].items()
    ]
    header = ["format", f"answer page in the first {TOP}", "files/s indexed", "skipped"]
    return [
        f"{f['pages']} pages in each format ({f['written_in_s']} s to write them all).",
        "",
        *table(header, rows),
    ]


def formats_found(results: dict[str, Any], first: int | None) -> str | None:
    """The README's headline: how many formats find what the HTML originals find."""
    f = results.get("formats")
    if not f:
        return None
    others = {k: v for k, v in f["formats"].items() if k != "html"}
    same = sum(row["same_as_html"] for row in others.values())
    html = f["formats"]["html"]["found_at_3"]
    return (
        f"{same} of {len(others)} formats, as in HTML ({html} of {f['questions']} in the "
        "first three); all but Markdown found none before, unread"
    )


def main() -> None:
    import json

    print(json.dumps(run_formats_bench(log=print), indent=2))


if __name__ == "__main__":
    main()
