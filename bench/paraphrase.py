"""What semantic search buys: questions worded unlike their answer page, BM25 vs hybrid.

The corpus is pydoc's text for standard-library modules, rendered at run time: one answer
page per question and pages that share their vocabulary. Each question avoids its module's
name and the words of its summary line, the way someone asks who does not know the module
("reflow a long paragraph", not "wrap text"). For every question we record the rank of the
answer page among the files found four ways: BM25 alone; the vectors alone (to tell the
model's misses from the fusion's); hybrid search as ponder does it, BM25 and
multilingual-e5-small's nearest passages (the rig's real embedder behind ``/api/embed``,
as ponder calls Ollama) fused by their rescaled scores; and the same search with the
reciprocal rank fusion ponder used before, swapped in for comparison. We report answer page
@1 and @3 for each: on the first 16 questions (which the score fusion was designed on), the
12 added before their rankings were seen, the 8 held out until the fusion was settled, all
36; and, as checks of what BM25 does well, on questions naming an identifier of their page
and on the quality benchmark's questions worded with their page's words. Also the questions
a fusion loses that BM25 finds, embedding throughput (passages per second) and hybrid query
latency (the query's embedding over HTTP included).

The corpus and its index, vectors included, are kept in ``.cache/paraphrase`` between runs:
only a first run, a changed page or ``--fresh`` embeds, and only such a run measures
throughput.

Run: ``python bench/paraphrase.py [--fresh] [--out FILE]``; ``bench/run.py`` runs it with
the quality benchmark; its figures are in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "paraphrase"

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
# Written after the score fusion's first measurement, before any change that followed it,
# for pages already in the corpus (the distractors): a last check, looked at once.
HELD_OUT: list[tuple[str, str]] = [
    ("How do I squeeze a chunk of bytes in memory so it takes less room, and get it back?", "zlib"),
    ("How do I turn raw bytes into a string of hex digits?", "binascii"),
    (
        "How can my server check that a webhook request was signed by someone holding our"
        " shared secret?",
        "hmac",
    ),
    ("How do I prompt for a secret at the terminal without echoing the keystrokes?", "getpass"),
    ("How do I turn a red-green-blue colour into hue, saturation and brightness?", "colorsys"),
    ("How do I find out whether two folders hold identical contents?", "filecmp"),
    (
        "How do I read through the lines of several documents, one after another, as if they"
        " were one?",
        "fileinput",
    ),
    (
        "How do I decode email text where an equals sign and two hex digits stand for one"
        " character?",
        "quopri",
    ),
]
# Questions that name an identifier of their page, BM25's strength and an embedding model's
# weakness: where a fusion that leans on the vectors would lose what BM25 finds. Written
# before they were asked, like HELD_OUT.
IDENTIFIERS: list[tuple[str, str]] = [
    ("What is the dirs_exist_ok flag for?", "shutil"),
    ("What does insort_left do differently from insort_right?", "bisect"),
    ("How is nsmallest used with a key?", "heapq"),
    ("What does limit_denominator return?", "fractions"),
    ("What can a NormalDist object compute?", "statistics"),
    ("When should I use a WeakValueDictionary?", "weakref"),
    ("What does ArgumentDefaultsHelpFormatter add to the help?", "argparse"),
    ("What arguments does mkdtemp take?", "tempfile"),
    ("What is urlsafe_b64encode for?", "base64"),
    ("What does the sort_dicts option change?", "pprint"),
    ("What does getnode return?", "uuid"),
    ("What are punctuation_chars for?", "shlex"),
    ("What does monthrange return?", "calendar"),
    ("What is get_close_matches for?", "difflib"),
    ("What does strict=False change for ip_network?", "ipaddress"),
]
# Pages that share the others' vocabulary (bytes, files, text, numbers); until HELD_OUT they
# answered no question.
DISTRACTORS = ["zlib", "binascii", "hmac", "getpass", "colorsys", "filecmp", "fileinput", "quopri"]
TOP = 3
METHODS = ("bm25", "vectors", "rrf", "hybrid")
PARAPHRASED = QUESTIONS + ADDED + HELD_OUT
SETS = {
    "first 16": QUESTIONS,
    "added 12": ADDED,
    "held out 8": HELD_OUT,
    "paraphrased": PARAPHRASED,
    "identifiers": IDENTIFIERS,
    "keywords": [],  # the quality benchmark's questions whose page is here (keywords())
}


def keywords() -> list[tuple[str, str]]:
    """The quality benchmark's questions, worded with their page's words, whose page is in
    this corpus: hybrid search must do no worse on them than on questions in other words."""
    from quality import QUESTIONS as WORDED_LIKE_THEIR_PAGE

    pages = {m for _, m in PARAPHRASED} | set(DISTRACTORS)
    return [(q, m) for q, m in WORDED_LIKE_THEIR_PAGE if m in pages]


def reciprocal_rank(lexical: dict[str, float], semantic: dict[str, float]) -> list[str]:
    """The fusion ponder used before (Cormack et al. 2009, k = 60): ranks only; ties keep
    the lexical order."""
    scores: dict[str, float] = {}
    for ranking in (lexical, semantic):
        for place, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (60 + place)
    return sorted(scores, key=lambda item: -scores[item])


def rank(found: list[str], answer: str) -> int | None:
    """1-based rank of the answer page among the files found, None when missing."""
    return found.index(answer) + 1 if answer in found else None


def within(ranks: list[int | None], top: int) -> int:
    return sum(1 for r in ranks if r is not None and r <= top)


def pct(count: int, of: int) -> float:
    return round(100 * count / of, 1)


def corpus(fresh: bool) -> tuple[Path, list[str]]:
    """The pages, each rendered once: a page kept from an earlier run is not written again,
    since pydoc's text changes from one process to the next (difflib's shows the addresses
    of default arguments) and a changed page is embedded again."""
    from ponder.testing.corpus import pydoc_corpus

    if fresh:
        shutil.rmtree(CACHE, ignore_errors=True)
    folder = CACHE / "pydocs"
    modules = sorted({m for _, m in PARAPHRASED} | set(DISTRACTORS))
    missing = [m for m in modules if not (folder / f"{m}.txt").exists()]
    written = pydoc_corpus(folder, missing)
    assert written == missing, f"pydoc could not render {set(missing) - set(written)}"
    for page in folder.glob("*.txt"):  # a module no longer in the lists leaves the corpus
        if page.stem not in modules:
            page.unlink()
    return folder, modules


def run_paraphrase_bench(threads: int = 2, fresh: bool = False) -> dict[str, Any]:
    from ponder.services.search import Embedder, LocalIndex
    from ponder.services.search.backends.local import results
    from ponder.testing import E5_EMBED_MODEL, E5Embedder, Rig, ScriptedBackend

    load_before = os.getloadavg()
    folder, modules = corpus(fresh)
    sets = {**SETS, "keywords": keywords()}
    embedder = E5Embedder(threads=threads)
    with Rig(ScriptedBackend(), embedder=embedder, embed_models=(E5_EMBED_MODEL,)) as rig:
        local = LocalIndex([folder], db_path=CACHE / "index.sqlite")
        local.index()
        client = Embedder(E5_EMBED_MODEL, rig.url)
        client.query("warm up")  # the model loads on first use: not part of the rate
        started = time.perf_counter()
        stats = local.embed(client)
        embed_seconds = time.perf_counter() - started

        def stems(hits: list[Any]) -> list[str]:
            return [Path(h.url).stem for h in hits]

        rows, latencies = [], []
        asked = list(dict.fromkeys(pair for questions in sets.values() for pair in questions))
        for question, answer in asked:
            began = time.perf_counter()
            vector = client.query(question)
            hybrid = local.search(question, TOP, query_vector=vector, embed_model=E5_EMBED_MODEL)
            latencies.append((time.perf_counter() - began) * 1000)
            with mock.patch.object(results, "fuse", reciprocal_rank):
                rrf = local.search(question, TOP, query_vector=vector, embed_model=E5_EMBED_MODEL)
            found = {
                "bm25": stems(local.search(question, TOP)),
                "vectors": stems(
                    local.search("", TOP, query_vector=vector, embed_model=E5_EMBED_MODEL)
                ),
                "rrf": stems(rrf),
                "hybrid": stems(hybrid),
            }
            row: dict[str, Any] = {"question": question, "answer": answer, **found}
            row.update({f"{m}_rank": rank(found[m], answer) for m in METHODS})
            rows.append(row)
        passages = local.status().passages
        local.close()
    embedder.close()
    return summarise(sets, rows, modules, passages, stats.embedded, embed_seconds, latencies) | {
        "load_before": [round(x, 1) for x in load_before],
        "load_after": [round(x, 1) for x in os.getloadavg()],
    }


def summarise(
    sets: dict[str, list[tuple[str, str]]],
    rows: list[dict[str, Any]],
    modules: list[str],
    passages: int,
    embedded: int,
    embed_seconds: float,
    latencies: list[float],
) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name, questions in sets.items():
        chosen = [r for r in rows if (r["question"], r["answer"]) in questions]
        figures[name] = {"questions": len(chosen)}
        for m in METHODS:
            ranks = [r[f"{m}_rank"] for r in chosen]
            figures[name][m] = {"at_1": within(ranks, 1), "at_3": within(ranks, TOP)}
    found_by_bm25 = [r for r in rows if r["bm25_rank"]]
    paraphrased = figures["paraphrased"]
    result: dict[str, Any] = {
        "questions": paraphrased["questions"],  # the others check what BM25 is good at
        "pages": len(modules),
        "passages": passages,
        "sets": figures,
        **{
            f"{m}_at_{top}_pct": pct(paraphrased[m][f"at_{top}"], paraphrased["questions"])
            for m in METHODS
            for top in (1, 3)
        },
        "lost_by_hybrid": [r["answer"] for r in found_by_bm25 if not r["hybrid_rank"]],
        "lost_by_rrf": [r["answer"] for r in found_by_bm25 if not r["rrf_rank"]],
        "gained_by_hybrid": [r["answer"] for r in rows if r["hybrid_rank"] and not r["bm25_rank"]],
        "embedded_now": embedded,
        "embed_seconds": round(embed_seconds, 1),
        # a run on the cached index embeds nothing, and measures no rate
        "passages_per_second": round(embedded / embed_seconds, 2) if embedded else None,
        "hybrid_query_ms_p50": round(statistics.median(latencies), 1),
        "hybrid_query_ms_max": round(max(latencies), 1),
        "rows": rows,
    }
    # Fusion never worse than its better list, on every set (issue 33).
    result["hybrid_below_a_list"] = [
        name
        for name, got in figures.items()
        if got["hybrid"]["at_3"] < max(got["bm25"]["at_3"], got["vectors"]["at_3"])
    ]
    result["target_met"] = (
        result["hybrid_at_3_pct"] >= 90
        and not result["lost_by_hybrid"]
        and not result["hybrid_below_a_list"]
    )
    return result


def print_summary(result: dict[str, Any]) -> None:
    print(
        f"{result['questions']} paraphrased questions and the checks, over {result['pages']} "
        f"pydoc pages ({result['passages']} passages); answer page @1 / @{TOP}"
    )
    names = {"bm25": "BM25 alone", "vectors": "vectors alone", "rrf": "old fusion (RRF)"}
    names["hybrid"] = "hybrid (score fusion)"
    print(f"  {'':22}" + "".join(f"{name:>14}" for name in SETS))
    for m in METHODS:
        cells = []
        for name in SETS:
            got, n = result["sets"][name][m], result["sets"][name]["questions"]
            cells.append(f"{got['at_1']:>2}/{n} {got[f'at_{TOP}']:>2}/{n}")
        print(f"  {names[m]:22}" + "".join(f"{cell:>14}" for cell in cells))
    print(
        f"  sets where hybrid @3 is below BM25's or the vectors': "
        f"{result['hybrid_below_a_list'] or 'none'}\n"
        f"  lost to BM25: hybrid {result['lost_by_hybrid'] or 'none'}, RRF "
        f"{result['lost_by_rrf'] or 'none'}; gained by hybrid: {result['gained_by_hybrid']}"
    )
    rate = result["passages_per_second"]
    print(
        f"  embedding {result['embedded_now']} passages in {result['embed_seconds']} s"
        + (f" = {rate} passages/s" if rate else " (the index was cached)")
        + f"; hybrid query {result['hybrid_query_ms_p50']} ms median "
        f"({result['hybrid_query_ms_max']} ms max); load {result['load_before']} -> "
        f"{result['load_after']}"
    )
    for row in result["rows"]:
        print(
            f"    {row['answer']:>11}  bm25 {row['bm25']}  vectors {row['vectors']}  "
            f"rrf {row['rrf']}  hybrid {row['hybrid']}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/paraphrase.py")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument(
        "--fresh", action="store_true", help="embed the corpus again (measures throughput)"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    result = run_paraphrase_bench(fresh=args.fresh)
    print_summary(result)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
