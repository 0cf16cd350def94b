"""Questions with two parts: is each part's page found and cited?

Each question joins two things that two different pydoc pages answer ("send pickled objects
over a socket": pickle and socket). The corpus is the quality benchmark's (82 standard-library
pages rendered by pydoc at run time) plus the pages these questions need; each question is
researched as there (``search=local``, ``max_loops=2``, ``mode=loop``, defaults otherwise).
We record both pages among the run's sources, both cited by the report, tokens and wall time.

Run: ``python bench/multipart.py [--backend tiny|scripted|all] [--limit N] [--out FILE]``.
``bench/run.py`` runs it as part of ``make bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from quality import DISTRACTORS, QUESTIONS, answer_stems, make_backend, settings_for
from workspace import isolated

# (question, the two modules whose pages answer its two parts)
MULTIPART: list[tuple[str, tuple[str, str]]] = [
    ("How do I send pickled objects over a socket?", ("pickle", "socket")),
    ("How do I keep a sorted list of dates with bisect?", ("bisect", "datetime")),
    ("How do I read an XML file and write its rows to CSV?", ("xml.etree.ElementTree", "csv")),
    ("How do I pack files into a tar archive and compress it with gzip?", ("tarfile", "gzip")),
    ("How do I parse command-line arguments and log messages to a file?", ("argparse", "logging")),
    (
        "How do I hash a file with SHA-256 and encode the digest as base64?",
        ("hashlib", "base64"),
    ),
    ("How do I run a shell command and parse its JSON output?", ("subprocess", "json")),
    (
        "How do I create dataclasses and store them in an SQLite database?",
        ("dataclasses", "sqlite3"),
    ),
    (
        "How do I read settings from an INI file and build file paths with pathlib?",
        ("configparser", "pathlib"),
    ),
    (
        "How do I run tasks in a pool of threads and pass their results through a queue?",
        ("concurrent.futures", "queue"),
    ),
    (
        "How do I do exact decimal arithmetic and compute the median of the results?",
        ("decimal", "statistics"),
    ),
    ("How do I copy a directory tree and match file names with wildcards?", ("shutil", "fnmatch")),
]
# Pages the questions need that the quality corpus lacks.
EXTRA_PAGES = ["socket", "datetime", "xml.etree.ElementTree"]


def build_corpus(folder: Path) -> list[str]:
    from ponder.testing.corpus import pydoc_corpus

    pages = {m for _, m in QUESTIONS} | set(DISTRACTORS) | set(EXTRA_PAGES)
    pages |= {m for _, pair in MULTIPART for m in pair}
    return pydoc_corpus(folder, sorted(pages))


async def run_question(question: str, pair: tuple[str, str], settings: dict[str, Any]) -> dict:
    from ponder import aresearch

    started = time.perf_counter()
    report = await aresearch(question, **settings)
    wall = time.perf_counter() - started
    found, cited = answer_stems(report.sources), answer_stems(report.cited_sources())
    stats = report.stats
    return {
        "question": question,
        "pages": list(pair),
        "found": [m for m in pair if m in found],
        "cited": [m for m in pair if m in cited],
        "found_both": all(m in found for m in pair),
        "cited_both": all(m in cited for m in pair),
        "sources": len(report.sources),
        "tokens": stats.prompt_tokens + stats.completion_tokens,
        "rounds": stats.rounds,
        "wall_seconds": round(wall, 2),
        "extractive": stats.extractive_report,
        "aspects": getattr(stats, "aspects", 0),
        "aspects_covered": getattr(stats, "aspects_covered", 0),
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str) -> float:
        return round(statistics.mean(r[key] for r in rows), 1) if rows else 0.0

    return {
        "questions": len(rows),
        "found_both": sum(r["found_both"] for r in rows),
        "cited_both": sum(r["cited_both"] for r in rows),
        "tokens_per_question": mean("tokens"),
        "wall_seconds_per_question": mean("wall_seconds"),
        "sources_per_question": mean("sources"),
    }


def bench_backend(kind: str, corpus: Path, questions: list, log: Any = None) -> dict[str, Any]:
    from ponder.testing import Rig

    rows = []
    with make_backend(kind) as (backend, model), Rig(backend, models=(model,)) as rig:
        for question, pair in questions:
            settings = settings_for(rig.url, model, corpus)
            row = asyncio.run(run_question(question, pair, settings))
            rows.append(row)
            if log:
                both = "cited both" if row["cited_both"] else f"cited {row['cited']}"
                cost = f"{row['tokens']:>6} tokens {row['wall_seconds']:>6} s"
                log(f"{kind}: {both:<32} {cost}  {question}")
    return {"summary": summarise(rows), "questions": rows}


def run_multipart_bench(
    backends: list[str], limit: int | None = None, log: Any = None
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="ponder-multipart-"))
    corpus = work / "corpus"
    pages = set(build_corpus(corpus))
    questions = [(q, pair) for q, pair in MULTIPART if set(pair) <= pages][:limit]
    results: dict[str, Any] = {"corpus_pages": len(pages), "questions": len(questions)}
    for kind in backends:
        results[kind] = bench_backend(kind, corpus, questions, log)
    return results


def multipart_figures(
    backends: list[str], log: Any = None, limit: int | None = None
) -> dict[str, Any]:
    """What ``make bench`` reports for ``backends``, beside the figures measured before
    aspects (multipart-before.json); ``limit``: only the first questions."""
    results = run_multipart_bench(backends, limit=limit, log=log)
    before = json.loads(Path(__file__).with_name("multipart-before.json").read_text("utf-8"))
    figures: dict[str, Any] = {"corpus_pages": results["corpus_pages"]}
    for kind in backends:
        figures[kind] = {
            "before": before[kind]["summary"],
            "after": results[kind]["summary"],
            "questions": results[kind]["questions"],
        }
    return figures


def table_rows(figures: dict[str, Any], single_part_tokens: float | None) -> list:
    """Rows of the bench's table; the target (tiny: both pages cited for 10 of 12, at no
    more tokens than a single-part question of the quality benchmark) when it can be told."""
    rows = []
    for kind in ("scripted", "tiny"):
        for when in ("before", "after"):
            if when not in figures.get(kind, {}):
                continue
            m = figures[kind][when]
            verdict = ""
            if kind == "tiny" and when == "after" and single_part_tokens:
                met = m["cited_both"] >= 10 and m["tokens_per_question"] <= single_part_tokens
                verdict = "  ✓ target met" if met else "  ✗ target MISSED"
            rows.append(
                (
                    f"multi-part {kind}, {when}",
                    f"both pages found {m['found_both']}/{m['questions']}, cited "
                    f"{m['cited_both']}/{m['questions']}, {m['tokens_per_question']:.0f} tokens, "
                    f"{m['wall_seconds_per_question']} s per question" + verdict,
                )
            )
    return rows


def _log(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/multipart.py")
    parser.add_argument("--backend", choices=["scripted", "tiny", "all"], default="all")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--out", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    backends = ["scripted", "tiny"] if args.backend == "all" else [args.backend]
    with isolated("ponder-multipart-home-"):
        results = run_multipart_bench(backends, args.limit, _log)
    for kind in backends:
        print(kind, json.dumps(results[kind]["summary"]))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
