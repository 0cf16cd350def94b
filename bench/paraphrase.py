"""What semantic search buys: questions worded unlike their answer page, BM25 vs hybrid.

The corpus is pydoc's text for standard-library modules, rendered at run time: one answer
page per question and pages that share their vocabulary. Each question avoids its module's
name and the words of its summary line, the way someone asks who does not know the module
("reflow a long paragraph", not "wrap text"). For every question we record the rank of the
answer page among the files found with BM25 alone, with the vectors alone (to tell the
model's misses from the fusion's) and with hybrid search (BM25 fused with
multilingual-e5-small's nearest passages, the rig's real embedder behind ``/api/embed``,
as ponder calls Ollama), and report answer page @1 and @3 for each, the questions hybrid
loses that BM25 finds, embedding throughput (passages per second, the whole corpus
embedded once) and hybrid query latency (the query's embedding over HTTP included).

Run: ``python bench/paraphrase.py [--out FILE]``; ``bench/run.py`` runs it with the
quality benchmark. Figures go in the README.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# (question, the module whose page answers it)
QUESTIONS: list[tuple[str, str]] = [
    ("How can I keep a list ordered as I add values, without sorting it again?", "bisect"),
    ("What is a quick way to keep taking out the smallest remaining item?", "heapq"),
    ("How do I break a command line into words the way a Unix shell does?", "shlex"),
    ("How do I test whether a file name fits a wildcard such as *.txt?", "fnmatch"),
    ("How do I list every file in a folder whose name ends in .py?", "glob"),
    ("How do I duplicate a nested object so that changes leave the original alone?", "copy"),
    ("How do I reflow a long paragraph so that no line is wider than 70 columns?", "textwrap"),
    ("How do I turn binary data into printable ASCII to send it in an email?", "base64"),
    ("How do I get a fingerprint of a file to check it was not tampered with?", "hashlib"),
    ("How do I pack integers and floats into a fixed binary record?", "struct"),
    ("How do I make repeated calls of a slow function with the same input instant?", "functools"),
    ("How do I make an unguessable token for a password-reset link?", "secrets"),
    ("How do I create an identifier that will not collide with other machines' ones?", "uuid"),
    ("Where can my program put scratch files that vanish when it is done?", "tempfile"),
    ("How do I shrink a big log file on disk and read it back later?", "gzip"),
    ("How do I load a spreadsheet export whose fields are split by commas?", "csv"),
]
# Added with the score fusion (issue 21), worded the same way and written down before any
# method's ranking of them was seen: the first 16 shaped the fusion, these test it.
ADDED: list[tuple[str, str]] = [
    ("How can I show which lines changed between two versions of a text?", "difflib"),
    ("How do I find out whether a given year has a 29th of February?", "calendar"),
    ("What is the middle value of my measurements, and how widely do they scatter?", "statistics"),
    ("How do I compute with one third exactly, with no rounding error?", "fractions"),
    ("How do I clone a folder with all its subfolders onto a backup drive?", "shutil"),
    ("How do I put a list into a jumbled order for a card game?", "random"),
    ("How do I look up the official name of an emoji or an accented letter?", "unicodedata"),
    ("How do I let people pass options such as --verbose when they start my script?", "argparse"),
    (
        "How do I check whether a visitor's address is inside my office network's range?",
        "ipaddress",
    ),
    ("How do I compare which of two one-liners runs faster?", "timeit"),
    ("How can a cache refer to objects without keeping them alive?", "weakref"),
    ("How do I display a deeply nested configuration readably over several lines?", "pprint"),
]
# Pages that answer none of them but share their vocabulary (bytes, files, text, numbers).
DISTRACTORS = ["zlib", "binascii", "hmac", "getpass", "colorsys", "filecmp", "fileinput", "quopri"]
TOP = 3


def rank(found: list[str], answer: str) -> int | None:
    """1-based rank of the answer page among the files found, None when missing."""
    return found.index(answer) + 1 if answer in found else None


def share(ranks: list[int | None], within: int) -> float:
    return round(100 * sum(1 for r in ranks if r is not None and r <= within) / len(ranks), 1)


def run_paraphrase_bench(threads: int = 2) -> dict[str, Any]:
    from ponder.services.search import Embedder, LocalIndex
    from ponder.testing import E5_EMBED_MODEL, E5Embedder, Rig, ScriptedBackend
    from ponder.testing.corpus import pydoc_corpus

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pydocs"
        modules = sorted({m for _, m in QUESTIONS} | set(DISTRACTORS))
        written = pydoc_corpus(folder, modules)
        assert set(written) == set(modules), f"pydoc could not render {set(modules) - set(written)}"
        embedder = E5Embedder(threads=threads)
        with Rig(ScriptedBackend(), embedder=embedder, embed_models=(E5_EMBED_MODEL,)) as rig:
            local = LocalIndex([folder], db_path=Path(tmp) / "index.sqlite")
            local.index()
            client = Embedder(E5_EMBED_MODEL, rig.url)
            client.query("warm up")  # the model loads on first use: not part of the rate
            started = time.perf_counter()
            stats = local.embed(client)
            embed_seconds = time.perf_counter() - started
            rows, latencies = [], []
            for question, answer in QUESTIONS:
                bm25 = [Path(h.url).stem for h in local.search(question, TOP)]
                began = time.perf_counter()
                vector = client.query(question)
                hits = local.search(question, TOP, query_vector=vector, embed_model=E5_EMBED_MODEL)
                latencies.append((time.perf_counter() - began) * 1000)
                hybrid = [Path(h.url).stem for h in hits]
                alone = local.search("", TOP, query_vector=vector, embed_model=E5_EMBED_MODEL)
                vectors = [Path(h.url).stem for h in alone]
                rows.append(
                    {
                        "question": question,
                        "answer": answer,
                        "bm25": bm25,
                        "vectors": vectors,
                        "hybrid": hybrid,
                        "bm25_rank": rank(bm25, answer),
                        "vectors_rank": rank(vectors, answer),
                        "hybrid_rank": rank(hybrid, answer),
                    }
                )
            local.close()
        embedder.close()
    bm25_ranks = [r["bm25_rank"] for r in rows]
    hybrid_ranks = [r["hybrid_rank"] for r in rows]
    vector_ranks = [r["vectors_rank"] for r in rows]
    lost = [r["answer"] for r in rows if r["bm25_rank"] and not r["hybrid_rank"]]
    gained = [r["answer"] for r in rows if r["hybrid_rank"] and not r["bm25_rank"]]
    return {
        "questions": len(rows),
        "pages": len(modules),
        "passages": stats.embedded,
        "bm25_at_1_pct": share(bm25_ranks, 1),
        "bm25_at_3_pct": share(bm25_ranks, 3),
        "vectors_at_1_pct": share(vector_ranks, 1),
        "vectors_at_3_pct": share(vector_ranks, 3),
        "hybrid_at_1_pct": share(hybrid_ranks, 1),
        "hybrid_at_3_pct": share(hybrid_ranks, 3),
        "lost_by_hybrid": lost,
        "gained_by_hybrid": gained,
        "embed_seconds": round(embed_seconds, 1),
        "passages_per_second": round(stats.embedded / embed_seconds, 2),
        "hybrid_query_ms_p50": round(statistics.median(latencies), 1),
        "hybrid_query_ms_max": round(max(latencies), 1),
        "target_met": share(hybrid_ranks, 3) >= 90 and not lost,
        "rows": rows,
    }


def print_summary(result: dict[str, Any]) -> None:
    print(
        f"{result['questions']} paraphrased questions over {result['pages']} pydoc pages "
        f"({result['passages']} passages)"
    )
    print(f"  BM25 alone:        @1 {result['bm25_at_1_pct']} %  @3 {result['bm25_at_3_pct']} %")
    print(
        f"  vectors alone:     @1 {result['vectors_at_1_pct']} %  @3 {result['vectors_at_3_pct']} %"
    )
    print(
        f"  hybrid (e5-small): @1 {result['hybrid_at_1_pct']} %  @3 {result['hybrid_at_3_pct']} %"
        f"  lost: {result['lost_by_hybrid'] or 'none'}  gained: {result['gained_by_hybrid']}"
    )
    print(
        f"  embedding {result['passages_per_second']} passages/s; hybrid query "
        f"{result['hybrid_query_ms_p50']} ms median ({result['hybrid_query_ms_max']} ms max)"
    )
    for row in result["rows"]:
        print(
            f"    {row['answer']:>10}  bm25 {row['bm25']}  vectors {row['vectors']}  "
            f"hybrid {row['hybrid']}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/paraphrase.py")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    result = run_paraphrase_bench()
    print_summary(result)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
