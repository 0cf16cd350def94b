"""Kiwix ZIM archives (search=zim) against the same pages as documents (search=local).

The Python docs' library pages (Debian's python3.11-doc, 317 HTML pages) are written at run
time into two ZIM archives with libzim, as Kiwix's scrapers write them: one with a full-text
(Xapian) index, one with a title index only. The quality benchmark's 24 questions
(quality.py) are then asked three ways — ``search=zim`` over each archive, and
``search=local`` over the same HTML pages in a folder:

- retrieval, no model: the answer page among the first three results, for those questions
  and the Python FAQ's 43 (people's questions, ponder.testing.faq);
- research with gemma3 270M (``mode=loop``, ``max_loops=2``, defaults otherwise): the
  answer page found and cited (targets: the full-text archive cites it as often as the
  folder; the titles-only archive at least two thirds as often);
- search latency through the backend as a run uses it (each archive in a parsing worker),
  over archives of 100, 530 and 2,120 pages (the whole HTML docs, then four copies of it
  under other paths), full text and titles only, with each archive's size and build time.

Run: ``python bench/zim.py [--backend tiny|scripted] [--limit N]``; ``make bench-zim`` runs
it with the tiny model (about 40 min) and adds it to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from quality import QUESTIONS, bench_backend
from workspace import isolated

TOP = 3
SIZES = (100, 530, 2120)
SHAPES = ("zim", "zim_titles", "local")


def docs_root() -> Path:
    from ponder.testing.pydocs import html_root

    return Path(html_root(Path(__file__).resolve().parents[1] / ".cache"))


def library_pages(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / "library").glob("*.html"))


def build(root: Path, pages: list[str], out: Path, fulltext: bool) -> dict[str, Any]:
    from ponder.testing.zim import write_zim

    started = time.perf_counter()
    write_zim(root, pages, out, fulltext=fulltext)
    return {
        "pages": len(pages),
        "fulltext": fulltext,
        "mb": round(out.stat().st_size / 2**20, 1),
        "build_seconds": round(time.perf_counter() - started, 1),
    }


def copies(root: Path, work: Path, times: int) -> tuple[Path, list[str]]:
    """Every HTML page of the docs ``times`` over, each copy under its own folder."""
    every = sorted(str(p.relative_to(root)) for p in root.rglob("*.html"))
    if times == 1:
        return root, every
    folder = work / f"copies-{times}"
    pages = []
    for copy in range(times):
        for page in every:
            target = folder / f"copy{copy}" / page
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(root / page, target)
            pages.append(f"copy{copy}/{page}")
    return folder, pages


def retrieval(archives: dict[str, Path], folder: Path, work: Path) -> dict[str, Any]:
    """The answer page among the first ``TOP`` results, without a model."""
    from ponder.services.search.backends.local.index import LocalIndex
    from ponder.services.search.backends.zim.client import ZimSearch
    from ponder.testing.faq import faq_questions

    root = docs_root()
    faq = [(q.text, q.pages) for q in faq_questions(root)]
    faq = [(t, p) for t, p in faq if all((root / "library" / f"{x}.html").exists() for x in p)]
    sets = {"quality": [(t, (m,)) for t, m in QUESTIONS], "faq": faq}
    index = LocalIndex([folder], db_path=work / "local.sqlite")
    index.index()

    def hits(shape: str, question: str) -> list[str]:
        if shape == "local":
            return [h.url for h in index.search(question, TOP)]
        search = ZimSearch([str(archives[shape])], None, warn=lambda _: None)
        return [h.url for h in asyncio.run(search.search(question, TOP))]

    found: dict[str, Any] = {}
    for name, questions in sets.items():
        found[name] = {"questions": len(questions)}
        for shape in SHAPES:
            found[name][shape] = sum(
                any(Path(url).stem in gold for url in hits(shape, question))
                for question, gold in questions
            )
    index.close()
    return found


def latency(root: Path, work: Path, log: Any) -> list[dict[str, Any]]:
    """Search time through the backend (a parsing worker), by archive size and index."""
    from ponder.services.search.backends.zim.client import ZimSearch

    rows = []
    questions = [q for q, _ in QUESTIONS]
    for size in SIZES:
        times = max(1, size // 530)
        source, pages = copies(root, work, times) if size >= 530 else (root, library_pages(root))
        pages = pages[:size]
        for fulltext in (True, False):
            out = work / f"size-{size}-{'fulltext' if fulltext else 'titles'}.zim"
            row = build(source, pages, out, fulltext)
            search = ZimSearch([str(out)], None, warn=lambda _: None)
            asyncio.run(search.search("warm up", TOP))  # the worker opens the archive
            seconds = []
            for question in questions:
                started = time.perf_counter()
                asyncio.run(search.search(question, TOP))
                seconds.append(time.perf_counter() - started)
            row["median_ms"] = round(1000 * statistics.median(seconds))
            row["max_ms"] = round(1000 * max(seconds))
            rows.append(row)
            if log:
                log(f"zim latency: {row}")
    return rows


def run_zim_bench(backends: list[str], limit: int | None = None, log: Any = None) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="ponder-zim-"))
    root = docs_root()
    pages = library_pages(root)
    folder = work / "pages"
    for page in pages:
        (folder / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / page, folder / page)
    archives = {"zim": work / "python-docs.zim", "zim_titles": work / "python-titles.zim"}
    results: dict[str, Any] = {
        "archives": {
            shape: build(root, pages, path, shape == "zim") for shape, path in archives.items()
        },
        "retrieval": retrieval(archives, folder, work),
    }
    if log:
        log(f"zim retrieval: {results['retrieval']}")
    questions = [(q, a) for q, a in QUESTIONS][:limit]
    for kind in backends:
        results[kind] = {}
        for shape in SHAPES:
            corpus = folder if shape == "local" else archives[shape]
            results[kind][shape] = bench_backend(kind, corpus, questions, log, search=shape)
    results["latency"] = latency(root, work, log)
    shutil.rmtree(work, ignore_errors=True)
    return results


def zim_figures(log: Any = None) -> dict[str, Any]:
    return run_zim_bench(["tiny"], log=log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/zim.py")
    parser.add_argument("--backend", choices=("tiny", "scripted"), default="tiny")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with isolated():
        results = run_zim_bench([args.backend], args.limit, log=print)
    text = json.dumps(results, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
