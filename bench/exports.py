"""Exports: how long each format takes for the deep pipeline's report of twenty and more
cited sources over the Python docs' HTML pages (the scripted rig's deep run, ten
researchers in two rounds; tests/support/reports.py), made on this machine with nothing
from the network (target: the PDF in under 5 s).

The first export of a process pays for loading its library (Typst's compiler and fonts,
python-docx's template), as ``ponder "…" --format pdf`` does once; the median of the next
five is what the page's Export menu costs a server that has made one before.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

from workspace import ROOT

from ponder.testing import Rig, ScriptedBackend
from ponder.testing.pydocs import html_root

sys.path.insert(0, str(ROOT / "tests"))
from support.reports import deep_report, docs_corpus  # (the tests' report over the docs)

REPEATS = 5
TARGET_SECONDS = 5.0


def bench_exports(work: Path) -> dict[str, Any]:
    from ponder.interfaces.exports import NAMES, export

    corpus = docs_corpus(html_root(ROOT / ".cache"), work / "pydocs")
    scripted = ScriptedBackend()
    with Rig(scripted) as rig:
        report = deep_report(rig, scripted, corpus)
    figures: dict[str, Any] = {
        "sources": len(report.cited_sources()),
        "citations": len(report.citations),
        "formats": {},
    }
    for name in NAMES:
        started = time.perf_counter()
        data = export(report, name)
        first = time.perf_counter() - started
        times = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            export(report, name)
            times.append(time.perf_counter() - started)
        figures["formats"][name] = {
            "first_ms": round(first * 1000, 1),
            "median_ms": round(statistics.median(times) * 1000, 1),
            "kb": round(len(data) / 1024, 1),
        }
    if "pdf" in figures["formats"]:
        import pypdfium2

        figures["pdf_pages"] = len(pypdfium2.PdfDocument(export(report, "pdf")))
    pdf = figures["formats"]["pdf"]
    figures["target_met"] = max(pdf["first_ms"], pdf["median_ms"]) < TARGET_SECONDS * 1000
    return figures


def table_rows(exports: dict[str, Any]) -> list[tuple[str, str]]:
    if not exports or "formats" not in exports:
        return []
    pdf = exports["formats"]["pdf"]
    mark = "  ✓ target met" if exports["target_met"] else "  ✗ target MISSED"
    rows = [
        (
            f"exports: PDF of a deep report ({exports['sources']} sources)",
            f"{pdf['first_ms']} ms the first, {pdf['median_ms']} ms after; "
            f"{exports.get('pdf_pages', '?')} pages, {pdf['kb']} KB" + mark,
        )
    ]
    others = [
        f"{name} {figures['median_ms']} ms"
        for name, figures in exports["formats"].items()
        if name != "pdf"
    ]
    rows.append(("exports: the other formats (median)", ", ".join(others)))
    return rows
