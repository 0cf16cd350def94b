"""Research quality: does a run find, keep and cite the page that answers the question?

The corpus is the Python standard library's own documentation, rendered by pydoc at run
time (one page per module: the answer pages and many distractors). Each question is written
as a user would ask it, mostly without naming the module, and has exactly one module page
that answers it. Every question is researched at ``max_loops=2`` with ``search=local`` over
the corpus and otherwise default settings, as a new user would run it, and we record:

- found: the answer page is among the run's sources;
- cited: the answer page is among the report's cited sources;
- tokens (prompt + completion), LLM calls, rounds, sources kept, wall time;
- report health, checked here independently of ponder's own guards: a sentence of a
  prompt echoed into the report, a line repeated, an extractive report.

Backends: ``scripted`` (the rig's canned replies), ``tiny`` (gemma3 270M, a base model that
echoes and loops) and ``smol`` (SmolLM2-135M-Instruct, topical prose that cites nothing).

Run: ``python bench/quality.py [--backend tiny|smol|scripted|all] [--limit N] [--out FILE]
[--samples DIR]``; ``--samples`` writes, per question, what the model wrote for the report
(as far as ponder read it) and the report the user got. ``bench/run.py`` runs it as part of
``make bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workspace import isolated

# (question, the module whose page answers it)
QUESTIONS: list[tuple[str, str]] = [
    ("How do I read and write JSON files in Python?", "json"),
    ("How can I parse command-line options and arguments in my script?", "argparse"),
    ("How do I compute the SHA-256 digest of some bytes?", "hashlib"),
    ("How do I run a shell command and capture its output?", "subprocess"),
    ("How can I copy a whole directory tree or move files?", "shutil"),
    ("How do I read rows from a comma-separated values file?", "csv"),
    ("How do I insert items into a list and keep it sorted?", "bisect"),
    ("How do I get the n smallest items with a priority queue?", "heapq"),
    ("How do I store data in an embedded SQL database file?", "sqlite3"),
    ("How do I compress and decompress files in the gzip format?", "gzip"),
    ("How can I create a temporary file that is deleted automatically?", "tempfile"),
    ("How do I shuffle a list and pick random elements?", "random"),
    ("How do I compute the median and standard deviation of data?", "statistics"),
    ("How do I write log messages to a file with severity levels?", "logging"),
    ("How do I serialize Python objects to bytes and load them back?", "pickle"),
    ("How do I read settings from an INI configuration file?", "configparser"),
    (
        "How can I run functions concurrently in a pool of threads or processes?",
        "concurrent.futures",
    ),
    ("How do I define a set of named constant values as a class?", "enum"),
    ("How do I cache the results of an expensive function call?", "functools"),
    ("How do I create classes with automatically generated __init__ and __repr__?", "dataclasses"),
    ("How do I encode binary data as base64 text?", "base64"),
    ("How do I generate a universally unique identifier?", "uuid"),
    ("How do I read the members of a ZIP archive?", "zipfile"),
    ("How do I do exact decimal arithmetic for money?", "decimal"),
]

# Pages that answer none of the questions but share their vocabulary.
DISTRACTORS = [
    "itertools",
    "pathlib",
    "collections",
    "string",
    "textwrap",
    "struct",
    "io",
    "copy",
    "tarfile",
    "lzma",
    "bz2",
    "zlib",
    "threading",
    "queue",
    "sched",
    "math",
    "fractions",
    "time",
    "calendar",
    "glob",
    "fnmatch",
    "operator",
    "pprint",
    "difflib",
    "secrets",
    "hmac",
    "shelve",
    "dbm",
    "marshal",
    "plistlib",
    "netrc",
    "getopt",
    "fileinput",
    "filecmp",
    "array",
    "weakref",
    "contextlib",
    "abc",
    "traceback",
    "warnings",
    "timeit",
    "codecs",
    "locale",
    "gettext",
    "html",
    "mimetypes",
    "binascii",
    "quopri",
    "shlex",
    "signal",
    "selectors",
    "mmap",
    "graphlib",
    "numbers",
    "cmath",
    "reprlib",
    "types",
    "keyword",
]

BACKENDS = ("scripted", "tiny", "smol")
PROMPT_SENTENCE_WORDS = 6  # an echoed run of this many prompt words counts as echo


def build_corpus(folder: Path) -> list[str]:
    """Write one pydoc text page per module; returns the module names written."""
    from ponder.testing.corpus import pydoc_corpus

    return pydoc_corpus(folder, sorted({m for _, m in QUESTIONS} | set(DISTRACTORS)))


# -- report health, checked independently of ponder's guards ---------------------------


def prompt_texts() -> list[str]:
    from ponder import prompts

    return [v for k, v in vars(prompts).items() if k.isupper() and isinstance(v, str)]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def echoes_prompt(report: str, prompts: list[str], n: int = PROMPT_SENTENCE_WORDS) -> bool:
    """True when ``n`` consecutive words of any prompt appear in the report."""
    grams = set()
    for text in prompts:
        words = _words(re.sub(r"\{[a-z_]+\}", " ", text))
        grams.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    words = _words(report)
    return any(tuple(words[i : i + n]) in grams for i in range(len(words) - n + 1))


def repeats_a_line(report: str) -> bool:
    """True when a non-trivial line of the report body appears twice."""
    body = report.split("\n## Sources", 1)[0]
    lines = [" ".join(line.split()) for line in body.splitlines()]
    lines = [line for line in lines if len(_words(line)) >= 3]
    return len(lines) != len(set(lines))


# -- running -------------------------------------------------------------------------


def answer_stems(sources: list[Any]) -> set[str]:
    return {Path(s.url).stem for s in sources}


async def run_question(
    question: str, answer: str, settings: dict[str, Any], prompts: list[str]
) -> tuple[dict[str, Any], str]:
    """The question's figures, and the report's Markdown."""
    from ponder import aresearch

    started = time.perf_counter()
    report = await aresearch(question, **settings)
    wall = time.perf_counter() - started
    stats = report.stats
    return {
        "question": question,
        "answer": answer,
        "found": answer in answer_stems(report.sources),
        "cited": answer in answer_stems(report.cited_sources()),
        "sources": len(report.sources),
        "cited_sources": len(report.cited_sources()),
        "rounds": stats.rounds,
        "llm_calls": stats.llm_calls,
        "tokens": stats.prompt_tokens + stats.completion_tokens,
        "completion_tokens": stats.completion_tokens,
        "report_seconds": round(stats.node_seconds.get("finalize_summary", 0.0), 2),
        "wall_seconds": round(wall, 2),
        "prompt_echo": echoes_prompt(report.markdown, prompts),
        "repeated_line": repeats_a_line(report.markdown),
        "extractive": stats.extractive_report,
        # the model's own prose, whole or cut and completed from the findings
        "written": not stats.extractive_report,
        "cut": stats.texts_cut > 0,
        "citations_added": stats.citations_added,
        "citations_repointed": stats.citations_repointed,
        "sentences_unsupported": stats.sentences_unsupported,
        "warnings": len(stats.warnings),
    }, report.markdown


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    count = len(rows)

    def share(key: str) -> float:
        return round(100.0 * sum(1 for r in rows if r[key]) / count, 1) if count else 0.0

    def mean(key: str) -> float:
        return round(statistics.mean(r[key] for r in rows), 1) if rows else 0.0

    return {
        "questions": count,
        "found_pct": share("found"),
        "cited_pct": share("cited"),
        "tokens_per_question": mean("tokens"),
        "wall_seconds_per_question": mean("wall_seconds"),
        "report_seconds_per_question": mean("report_seconds"),
        "sources_per_question": mean("sources"),
        "rounds_per_question": mean("rounds"),
        "prompt_echo_pct": share("prompt_echo"),
        "repeated_line_pct": share("repeated_line"),
        "extractive_pct": share("extractive"),
        "written_pct": share("written"),
        "cut_pct": share("cut"),
        "citations_added_per_question": mean("citations_added"),
        "sentences_unsupported_per_question": mean("sentences_unsupported"),
    }


def settings_for(url: str, model: str, corpus: Path, search: str = "local") -> dict[str, Any]:
    """Defaults as a new user has them, except two rounds over the local corpus (with
    ``search`` zim or zim_titles, ``corpus`` is a ZIM archive: zim.py)."""
    where = {"docs": [str(corpus)]} if search == "local" else {"zim": [str(corpus)]}
    return {
        "model": model,
        "ollama_base_url": url,
        "search": "local" if search == "local" else "zim",
        **where,
        "mode": "loop",
        "max_loops": 2,
    }


@contextlib.contextmanager
def make_backend(kind: str) -> Iterator[tuple[Any, str]]:
    """The rig backend for ``kind`` and the model name it is served under; a real model is
    closed when the block ends, before the interpreter exits."""
    from ponder.testing import ScriptedBackend
    from ponder.testing.models import GEMMA3, SMOLLM2
    from ponder.testing.tiny import TinyModelBackend

    real = {"tiny": GEMMA3, "smol": SMOLLM2}.get(kind)
    if real is None:
        yield ScriptedBackend(), "scripted"
        return
    # As with Ollama, only num_predict (default 1024) bounds an answer.
    with TinyModelBackend(real, n_ctx=8192, max_predict=1024) as backend:
        yield backend, real.name


def write_sample(folder: Path, name: str, question: str, calls: list[Any], report: str) -> None:
    """What the model wrote in each plain-text call of one run, then the report."""
    parts = [f"# {question}\n"]
    for number, call in enumerate(calls, start=1):
        how = "stopped by ponder" if call.client_stopped else "complete"
        parts.append(
            f"## Model text {number} ({how}, {call.eval_tokens or call.pieces_sent} tokens, "
            f"temperature {call.options.get('temperature')})\n\n{call.reply}\n"
        )
    parts.append(f"## The report ponder returned\n\n{report}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text("\n".join(parts), encoding="utf-8")


def bench_backend(
    kind: str,
    corpus: Path,
    questions: list[tuple[str, str]],
    log: Any = None,
    samples: Path | None = None,
    search: str = "local",
) -> dict[str, Any]:
    from ponder.testing import Rig

    prompts = prompt_texts()
    rows = []
    with make_backend(kind) as (backend, model), Rig(backend, models=(model,)) as rig:
        for question, answer in questions:
            before = len(rig.chat_log())
            row, report = asyncio.run(
                run_question(
                    question, answer, settings_for(rig.url, model, corpus, search), prompts
                )
            )
            rows.append(row)
            if samples:
                rig.wait_idle()
                texts = [e for e in rig.chat_log()[before:] if e.schema is None]
                write_sample(samples, f"{kind}-{answer}", question, texts, report)
            if log:
                log(
                    f"{kind}: {'found' if row['found'] else 'MISSED'}"
                    f"{' cited' if row['cited'] else ''} {answer:<12} "
                    f"{row['tokens']:>6} tokens {row['wall_seconds']:>6} s  {question}"
                )
    return {"summary": summarise(rows), "questions": rows}


def run_quality_bench(
    backends: list[str], limit: int | None = None, log: Any = None, samples: Path | None = None
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="ponder-quality-"))
    corpus = work / "corpus"
    modules = build_corpus(corpus)
    questions = [(q, a) for q, a in QUESTIONS if a in modules][:limit]
    results: dict[str, Any] = {"corpus_pages": len(modules), "questions": len(questions)}
    for kind in backends:
        results[kind] = bench_backend(kind, corpus, questions, log, samples)
    return results


def quality_figures(
    backends: list[str], log: Any = None, limit: int | None = None
) -> dict[str, Any]:
    """What ``make bench`` reports for ``backends``, next to the figures measured before
    issue 10 (quality-before.json; SmolLM2 came later and has none). ``limit``: only the
    first questions (``make bench-quick``), with no target, which holds for all 24."""
    results = run_quality_bench(backends, limit=limit, log=log)
    before = json.loads(Path(__file__).with_name("quality-before.json").read_text("utf-8"))
    figures: dict[str, Any] = {
        "corpus_pages": results["corpus_pages"],
        "questions": len(QUESTIONS),
    }
    for kind in backends:
        figures[kind] = {
            **({"before": before[kind]["summary"]} if kind in before else {}),
            "after": results[kind]["summary"],
            "questions": results[kind]["questions"],
        }
    if "tiny" in backends and limit is None:
        tiny_after, tiny_before = figures["tiny"]["after"], figures["tiny"]["before"]
        figures["target_met"] = (
            tiny_after["found_pct"] >= 90
            and tiny_after["tokens_per_question"] < tiny_before["tokens_per_question"]
        )
    return figures


def _log(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/quality.py")
    parser.add_argument("--backend", choices=[*BACKENDS, "all"], default="all")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--out", type=Path, default=None, help="write the figures here")
    parser.add_argument("--samples", type=Path, default=None, help="write what was written here")
    args = parser.parse_args(argv)
    backends = list(BACKENDS) if args.backend == "all" else [args.backend]
    with isolated("ponder-quality-home-"):
        results = run_quality_bench(backends, args.limit, _log, args.samples)
    for kind in backends:
        print(kind, json.dumps(results[kind]["summary"]))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
