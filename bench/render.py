"""docs/benchmarks.md and the README's headline figures, written from bench/results.json.

``bench/run.py`` calls :func:`write` after it writes results.json, so the page always shows
the figures of the last run of each part. What each benchmark measures is said here (see
:mod:`about`); the figures come from the JSON, through the table's rows (:mod:`table`) or a
table of their own where one figure has several columns.

Run: ``python bench/render.py`` (write both again) or ``python bench/render.py --check``
(exit 1 when either is not what results.json gives: ``make lint`` runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import about
import headline
from formats import formats_table
from table import part_rows, quality_view
from workspace import BENCH, ROOT

PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
RESULTS = BENCH / "results.json"
# The README's headline block lies between these lines, which stay.
BEGIN = "<!-- headline figures: written by bench/render.py from bench/results.json -->"
END = "<!-- end of headline figures -->"


def cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(cell(c) for c in row) + " |" for row in rows),
    ]


def figure_rows(rows: list[tuple[str, str]]) -> list[str]:
    """The bench's own table rows (figure, value), as printed in the terminal."""
    return table(["figure", "measured"], [[name, value.strip()] for name, value in rows])


def quality_table(results: dict[str, Any]) -> list[str]:
    quality = quality_view(results)
    names = {"scripted": "scripted rig", "tiny": "gemma3 270M", "smol": "SmolLM2 135M"}
    total = quality.get("questions")
    rows = []
    for kind, name in names.items():
        for when in ("before", "after"):
            q = (quality.get(kind) or {}).get(when)
            if not q:
                continue
            subset = f", first {q['questions']}" if total and q["questions"] < total else ""
            label = f"{name}{subset}" + (", before the guards" if when == "before" else "")
            written = f"{q['written_pct']} %" if "written_pct" in q else "—"
            rows.append(
                [
                    label,
                    f"{q['found_pct']} %",
                    f"{q['cited_pct']} %",
                    q["sources_per_question"],
                    f"{q['tokens_per_question']:,.0f}",
                    f"{q['wall_seconds_per_question']} s",
                    f"{q['report_seconds_per_question']} s",
                    f"{q['prompt_echo_pct']} %",
                    f"{q['repeated_line_pct']} %",
                    written,
                ]
            )
    header = [
        *("", "answer page found", "cited", "sources kept", "tokens", "wall time"),
        *("of which the report", "prompt echoed", "a line repeated", "model's own text"),
    ]
    missed = [
        r["answer"] for r in (quality.get("tiny") or {}).get("questions", []) if not r["found"]
    ]
    note = ["", f"The 270M model's runs missed: {', '.join(missed)}."] if missed else []
    return [*table(header, rows), *note]


def multipart_table(results: dict[str, Any]) -> list[str]:
    multipart = results["multipart"]
    names = {"scripted": "scripted rig", "tiny": "gemma3 270M"}
    rows = []
    for kind, name in names.items():
        for when in ("before", "after"):
            m = (multipart.get(kind) or {}).get(when)
            if not m:
                continue
            n = m["questions"]
            rows.append(
                [
                    name + (", before parts were split" if when == "before" else ""),
                    f"{m['found_both']} / {n}",
                    f"{m['cited_both']} / {n}",
                    m["sources_per_question"],
                    f"{m['tokens_per_question']:,.0f}",
                    f"{m['wall_seconds_per_question']} s",
                ]
            )
    header = ["", "both pages found", "both cited", "sources kept", "tokens", "wall time"]
    return table(header, rows)


def heldout_table(results: dict[str, Any]) -> list[str]:
    """Development and test halves side by side, before and after, per search shape."""
    tiny = results["heldout"].get("tiny") or {}
    after, before = tiny.get("after") or {}, tiny.get("before") or {}
    from heldout import SHAPES, table_rows

    rows = []
    for shape in SHAPES:
        for key, m in ((after.get(shape) or {}).get("summary") or {}).items():
            half, size = key.split("_", 1)
            was = ((before.get(shape) or {}).get("summary") or {}).get(key)
            n = m["questions"]
            rows.append(
                [
                    shape,
                    "development" if half == "dev" else "**test**",
                    size.replace("_", " "),
                    f"{was['found_all']} / {was['questions']}" if was else "—",
                    f"{was['cited_all']} / {was['questions']}" if was else "—",
                    f"{was['tokens_per_question']:,}" if was else "—",
                    f"{m['found_all']} / {n}",
                    f"{m['cited_all']} / {n}",
                    f"{m['tokens_per_question']:,}",
                ]
            )
    header = [
        *("search", "half", "gold pages", "found, before", "cited, before", "tokens, before"),
        *("found", "cited", "tokens"),
    ]
    targets = [f"- {name}: {value}" for name, value in table_rows(results["heldout"])]
    return [
        *table(header, rows),
        "",
        "Against the targets:",
        "",
        *targets,
        *heldout_retrieval_table(results["heldout"].get("retrieval")),
    ]


def heldout_retrieval_table(retrieval: dict[str, Any] | None) -> list[str]:
    """The question itself searched by words, by meaning and by both, per half."""
    if not retrieval:
        return []
    rows = []
    for half, m in retrieval["halves"].items():
        n = m["questions"]
        lost = m["lost_by_hybrid"]
        rows.append(
            [
                "development" if half == "dev" else "**test**",
                *(f"{m[f'{method}_at_3']} / {n}" for method in ("bm25", "vectors", "hybrid")),
                *(f"{m[f'{method}_at_10']} / {n}" for method in ("bm25", "vectors", "hybrid")),
                ", ".join(lost) if lost else "none",
            ]
        )
    header = [
        *("half", "BM25 @3", "vectors @3", "hybrid @3", "BM25 @10", "vectors @10"),
        *("hybrid @10", "BM25 @3 lost by hybrid"),
    ]
    intro = (
        "The question itself as the query (as round 1 asks it), every gold page within the "
        "first 3 or 10 results of local search over the embedded pages:"
    )
    return ["", intro, "", *table(header, rows), *heldout_ceiling_table(retrieval)]


def heldout_ceiling_table(retrieval: dict[str, Any]) -> list[str]:
    """How many questions a report could cite at most by quoting what the question's own
    hybrid search finds: every gold page within the results round 1 reads, or within ``TOP``."""
    from heldout_retrieval import READ, TOP, ceiling

    rows = [
        [
            "development" if key.startswith("dev") else "**test**",
            key.split("_", 1)[1].replace("_", " "),
            f"{m[f'hybrid_within_{READ}']} / {m['questions']}",
            f"{m[f'hybrid_within_{TOP}']} / {m['questions']}",
        ]
        for key, m in ceiling(retrieval["questions"]).items()
    ]
    header = ["half", "gold pages", f"within {READ} (read in round 1)", f"within {TOP}"]
    intro = (
        "How far the question's own hybrid search reaches, per half and number of gold "
        f"pages: every gold page within the {READ} results round 1 reads of it, or within "
        f"{TOP}. From that search alone no report could cite more; only the loop's other "
        "searches (the model's, the question's parts') can add to it."
    )
    return ["", intro, "", *table(header, rows)]


def paraphrase_table(results: dict[str, Any]) -> list[str]:
    p = results["paraphrase"]
    names = {
        "bm25": "BM25 alone",
        "vectors": "the e5 vectors alone (not a ponder setting)",
        "rrf": "reciprocal rank fusion (k = 60), as before",
        "hybrid": "**score fusion: what `embed_model` gives**",
    }
    sets = p["sets"]
    header = [
        "ranking (answer page first / in the first three)",
        *(
            name if str(sets[name]["questions"]) in name else f"{name} ({sets[name]['questions']})"
            for name in sets
        ),
    ]
    rows = [
        [label, *(f"{sets[s][m]['at_1']} / {sets[s][m]['at_3']}" for s in sets)]
        for m, label in names.items()
        if m in sets["paraphrased"]
    ]
    lost = ", ".join(p["lost_by_hybrid"]) or "none"
    rate = p.get("passages_per_second")
    cost = (
        f"embedded at {rate} passages/s" if rate else "the kept index, so no embedding rate"
    ) + f"; a hybrid query takes {p['hybrid_query_ms_p50']} ms (median), its embedding included"
    return [
        f"Over {p['pages']} pydoc pages ({p['passages']:,} passages), {cost}.",
        "",
        *table(header, rows),
        "",
        f"Questions BM25 finds that hybrid search loses: {lost}.",
    ]


def zim_table(results: dict[str, Any]) -> list[str]:
    zim = results["zim"]
    names = {"zim": "ZIM, full text", "zim_titles": "ZIM, titles only", "local": "documents"}
    retrieval = zim.get("retrieval", {})
    quality, faq = retrieval.get("quality", {}), retrieval.get("faq", {})
    header = ["search", "answer in top 3 (24 questions)", "FAQ: in top 3 (43)"]
    rows = [
        [names[shape], f"{quality.get(shape, '?')}/{quality.get('questions', '?')}",
         f"{faq.get(shape, '?')}/{faq.get('questions', '?')}"]
        for shape in names
    ]  # fmt: skip
    lines = [*table(header, rows), ""]
    tiny = zim.get("tiny") or {}
    if tiny:
        local = tiny["local"]["summary"]["cited_pct"]
        header = ["search (gemma3 270M)", "found", "cited", "tokens / question", "s / question"]
        rows = []
        for shape, name in names.items():
            summary = tiny[shape]["summary"]
            target = {"zim": local, "zim_titles": round(local * 2 / 3, 1)}.get(shape)
            mark = "" if target is None else (" ✓" if summary["cited_pct"] >= target else " ✗")
            rows.append([
                name, f"{summary['found_pct']} %", f"{summary['cited_pct']} %{mark}",
                summary["tokens_per_question"], summary["wall_seconds_per_question"],
            ])  # fmt: skip
        lines += [*table(header, rows), ""]
    header = ["archive", "pages", "size", "built in", "search: median", "slowest"]
    rows = [
        ["full text" if r["fulltext"] else "titles only", r["pages"], f"{r['mb']} MB",
         f"{r['build_seconds']} s", f"{r['median_ms']} ms", f"{r['max_ms']} ms"]
        for r in zim.get("latency", [])
    ]  # fmt: skip
    return [*lines, *table(header, rows)]


SPECIAL = {
    "zim": zim_table,
    "formats": formats_table,
    "quality": quality_table,
    "multipart": multipart_table,
    "heldout": heldout_table,
    "paraphrase": paraphrase_table,
}


def section(part: about.Part, results: dict[str, Any], rows: list[tuple[str, str]]) -> list[str]:
    lines = [f"## {part.title}", "", part.text.strip(), ""]
    figures = any(results.get(key) for key in part.keys)
    if part.key in SPECIAL and results.get(part.key):
        lines += [*SPECIAL[part.key](results), ""]
    if rows:
        lines += [*figure_rows(rows), ""]
    if not figures and not rows:
        lines += ["Not measured in the last run.", ""]
    took = [results.get("parts", {}).get(key, {}).get("seconds") for key in part.keys]
    took = [t for t in took if t is not None]
    rerun = f"Run it alone: `{part.rerun}`"
    if took:
        rerun += f" (it took {minutes(sum(took))} in the last run)"
    return [*lines, rerun + ".", ""]


def minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def page(results: dict[str, Any]) -> str:
    machine = results.get("machine", {})
    load = machine.get("load_at_start")
    where = f"{machine.get('cpus', '?')} CPU cores (no GPU), Python {machine.get('python', '?')}"
    if load is not None:
        where += f"; load average {load} when the bench began"
    rows = dict(part_rows(results))
    lines = [
        "# Benchmarks",
        "",
        "<!-- Written by bench/render.py from bench/results.json: `make bench` rewrites it. -->",
        "",
        about.INTRO.strip(),
        "",
        f"Last run on {where}. Times and rates follow the machine's load; "
        "shares, counts and tokens do not (except where a model samples, as noted).",
        "",
        "## Headline figures",
        "",
        *headline.markdown_table(results, ""),
        "",
        *running(results),
    ]
    for part in about.PARTS:
        part_table = [row for key in part.keys for row in rows.get(key, [])]
        if part.key in SPECIAL:
            part_table = []  # its own table says it
        lines += section(part, results, part_table)
    return "\n".join(lines).rstrip() + "\n"


def running(results: dict[str, Any]) -> list[str]:
    full = results.get("bench_seconds")
    took = f" The last full run took {minutes(full)}." if full else ""
    return [
        "## Running them",
        "",
        about.RUNNING.strip() + took,
        "",
    ]


def readme_with_headline(readme: str, results: dict[str, Any]) -> str:
    """The README with its headline block written from ``results``."""
    head, found, rest = readme.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not found or not end:
        raise SystemExit(f"README.md has no headline block ({BEGIN} … {END})")
    block = headline.markdown_table(results, "docs/benchmarks.md")
    return head + BEGIN + "\n" + "\n".join(block) + "\n" + END + tail


def write(results: dict[str, Any]) -> None:
    PAGE.write_text(page(results), encoding="utf-8")
    README.write_text(
        readme_with_headline(README.read_text(encoding="utf-8"), results), encoding="utf-8"
    )


def stale(results: dict[str, Any]) -> list[Path]:
    """The files that are not what ``results`` gives."""
    readme = README.read_text(encoding="utf-8")
    out = []
    if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page(results):
        out.append(PAGE)
    if readme_with_headline(readme, results) != readme:
        out.append(README)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/render.py")
    parser.add_argument("--check", action="store_true", help="fail if a file is stale")
    args = parser.parse_args(argv)
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    if not args.check:
        write(results)
        return 0
    old = stale(results)
    for path in old:
        print(
            f"{path.relative_to(ROOT)} is not what bench/results.json gives: "
            "run `python bench/render.py` (make bench does).",
            file=sys.stderr,
        )
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())
