"""The headline figures: computed from bench/results.json's per-question rows, so the
same figure can be told for a subset (``make bench-quick``) and for the whole run.

Each figure is computed from the rows of one benchmark; ``first`` limits it to the first
questions, reports or pages of that benchmark, as a quick run measures them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# How many of each benchmark's items `make bench-quick` runs: enough for a change that
# moves a headline figure to show, few enough for a few minutes on two cores.
QUICK = {"quality": 6, "multipart": 3, "strong_prose": 10}


@dataclass(frozen=True)
class Figure:
    what: str  # what the figure says, for a reader who has not seen the benchmark
    part: str  # the benchmark (its name in results.json and its section of the page)
    anchor: str  # the section of docs/benchmarks.md that explains it
    value: Callable[[dict[str, Any], int | None], str | None]  # None: not measured
    rerun: str = "make bench"  # the command that measures it


def _share(count: int, of: int) -> str:
    return f"{count} of {of} ({100 * count / of:.1f} %)" if of else "none"


def quality_cited(results: dict[str, Any], first: int | None) -> str | None:
    rows = ((results.get("quality") or {}).get("tiny") or {}).get("questions")
    if not rows:
        return None
    rows = rows[:first]
    return _share(sum(r["cited"] for r in rows), len(rows))


def multipart_cited(results: dict[str, Any], first: int | None) -> str | None:
    rows = ((results.get("multipart") or {}).get("tiny") or {}).get("questions")
    if not rows:
        return None
    rows = rows[:first]
    return f"{sum(r['cited_both'] for r in rows)} of {len(rows)}"


def prose_kept(results: dict[str, Any], first: int | None) -> str | None:
    rows = (((results.get("strong_prose") or {}).get("faithful")) or {}).get("rows")
    if not rows:
        return None
    rows = rows[:first]
    return f"{sum(r['kept_whole'] for r in rows)} of {len(rows)}"


def prose_precision(results: dict[str, Any], first: int | None) -> str | None:
    rows = (((results.get("strong_prose") or {}).get("misdirected")) or {}).get("rows")
    if not rows:
        return None
    rows = rows[:first]
    cited = sum(r["cited"] for r in rows)
    correct = sum(r["correct"] for r in rows)
    return f"{100 * correct / cited:.1f} % of {cited:,} cited sentences" if cited else "none"


def hybrid_at_3(results: dict[str, Any], first: int | None) -> str | None:
    p = results.get("paraphrase")
    if not p:
        return None
    return f"{p['hybrid_at_3_pct']} %, against {p['bm25_at_3_pct']} % by keywords alone"


def heldout_cited(results: dict[str, Any], first: int | None) -> str | None:
    """The test half with semantic search on, the best of the shapes measured."""
    tiny = ((results.get("heldout") or {}).get("tiny") or {}).get("after") or {}
    summary = (tiny.get("hybrid") or {}).get("summary") or {}
    one, two = summary.get("test_one_page"), summary.get("test_two_pages")
    if not one or not two:
        return None
    return (
        f"{_share(one['cited_all'], one['questions'])}; both pages for "
        f"{two['cited_all']} of {two['questions']} two-page questions"
    )


def zim_cited(results: dict[str, Any], first: int | None) -> str | None:
    tiny = (results.get("zim") or {}).get("tiny") or {}
    rows = {shape: (tiny.get(shape) or {}).get("questions") for shape in ("zim", "zim_titles")}
    local = (tiny.get("local") or {}).get("questions")
    if not all(rows.values()) or not local:
        return None

    def cited(found: list[dict[str, Any]]) -> int:
        return sum(r["cited"] for r in found[:first])

    full, titles = cited(rows["zim"] or []), cited(rows["zim_titles"] or [])
    return (
        f"{full} of {len(local[:first])} with its full-text index, {titles} with titles only; "
        f"{cited(local)} from the same pages as documents"
    )


def _formats_found(results: dict[str, Any], first: int | None) -> str | None:
    from formats import formats_found

    return formats_found(results, first)


FIGURES = [
    Figure(
        "A 270M model's report cites the page that answers the question",
        "quality",
        "research-quality",
        quality_cited,
    ),
    Figure(
        "Both pages cited, for questions with two parts, same model",
        "multipart",
        "questions-with-several-parts",
        multipart_cited,
    ),
    Figure(
        "A capable model's report kept word for word",
        "strong_prose",
        "strong-prose-a-capable-models-report",
        prose_kept,
    ),
    Figure(
        "Citations right after 30 % of them were misdirected",
        "strong_prose",
        "strong-prose-a-capable-models-report",
        prose_precision,
    ),
    Figure(
        "Semantic search: answer page in the first three, for questions worded unlike it",
        "paraphrase",
        "what-semantic-search-buys",
        hybrid_at_3,
    ),
    Figure(
        "Your documents as DOCX, ODT, EPUB, PPTX, notebooks, LaTeX, Org and Markdown: the "
        "Python FAQ's questions find the same answer pages as in the HTML originals",
        "formats",
        "your-documents-in-every-format",
        lambda results, first: _formats_found(results, first),
    ),
    Figure(
        "A Kiwix ZIM archive of the same docs' library pages, searched offline: the 270M "
        "model's report cites the answer page",
        "zim",
        "kiwix-zim-archives",
        zim_cited,
        rerun="make bench-zim",
    ),
    Figure(
        "The same 270M model on held-out questions (the Python FAQ's, test half, semantic "
        "search on): answer page cited",
        "heldout",
        "held-out-questions",
        heldout_cited,
        rerun="make bench-heldout",
    ),
]


def values(results: dict[str, Any], first: dict[str, int] | None = None) -> list[str]:
    """Each headline figure's value, "not measured" where its benchmark did not run."""
    first = first or {}
    return [f.value(results, first.get(f.part)) or f"not measured (`{f.rerun}`)" for f in FIGURES]


def markdown_table(results: dict[str, Any], link: str) -> list[str]:
    """The headline figures as a Markdown table, each linking to its section under ``link``."""
    lines = ["| | measured |", "|---|---|"]
    for figure, value in zip(FIGURES, values(results), strict=True):
        lines.append(f"| [{figure.what}]({link}#{figure.anchor}) | {value} |")
    return lines
