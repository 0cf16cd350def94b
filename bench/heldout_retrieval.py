"""Held-out retrieval: does local search put the FAQ's gold pages first, by words, by
meaning, or by both?

Each held-out question (``heldout.py``) is asked as round 1 asks it, the question itself, of
the embedded index of the docs (``heldout.embedded_index``) three ways: BM25 alone, the
e5-small vectors alone, and ponder's hybrid fusion of the two. Recorded per half: the
questions whose every gold page is within the first 3 and the first 10 results, and the
questions BM25 has within 3 that the hybrid does not (a fusion must lose none of them).
Per question, each way's rank is kept, so the page can also say how many questions of each
half and size the hybrid search holds every gold page of within the 5 results round 1 reads
of it, and within 10 (``ceiling``): what quoting every page the question's search finds could
cite at most.
The fusion's weight was chosen on the paraphrase benchmark's development half; both halves
here are read, never tuned on.

Run: ``python bench/heldout_retrieval.py`` (seconds once the index is embedded).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from heldout import E5, docs_root, embedded_index, faq_questions, page_of
from workspace import isolated

METHODS = ("bm25", "vectors", "hybrid")
TOP = 10


def retrieval_figures(log: Any = None) -> dict[str, Any]:
    from ponder.services.research.vetting import question_query
    from ponder.services.search import Embedder, LocalIndex

    docs, cache = embedded_index(log)
    index = LocalIndex([docs], cache_dir=cache)
    embedder = Embedder(E5, "http://unused")
    rows = []
    try:
        for question in faq_questions(docs_root()):
            query = question_query(question.text)
            vector = embedder.query(query)
            found = {
                "bm25": index.search(query, TOP),
                "vectors": index.search("", TOP, query_vector=vector, embed_model=E5),
                "hybrid": index.search(query, TOP, query_vector=vector, embed_model=E5),
            }
            ranks = {
                m: _ranks([page_of(r.url) for r in hits], question.pages)
                for m, hits in found.items()
            }
            rows.append(
                {"text": question.text, "half": question.half, "pages": question.pages, **ranks}
            )
    finally:
        index.close()
    return {
        "halves": {
            half: summarise([r for r in rows if r["half"] == half]) for half in ("dev", "test")
        },
        "questions": rows,
    }


def _ranks(pages: list[str], gold: tuple[str, ...]) -> int | None:
    """The rank (1-based) by which every gold page has come, or None past ``TOP``."""
    places = [pages.index(p) + 1 for p in gold if p in pages]
    return max(places) if len(places) == len(gold) else None


def _results_read() -> int:
    """How many results round 1 reads of the question's own search: results_per_query's
    default."""
    from ponder.settings.research_loop import ResearchLoop

    return int(ResearchLoop.model_fields["results_per_query"].default)


READ = _results_read()


def within(rows: list[dict[str, Any]], method: str, top: int) -> int:
    """The questions whose every gold page ``method`` ranks within the first ``top``."""
    return sum(r[method] is not None and r[method] <= top for r in rows)


def ceiling(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per half and size, the questions whose every gold page the question's own hybrid
    search ranks within the first ``READ`` and ``TOP`` results: the most a report could cite
    from that search alone."""
    out: dict[str, Any] = {}
    for half in ("dev", "test"):
        for size, name in ((1, "one_page"), (2, "two_pages")):
            group = [r for r in rows if r["half"] == half and len(r["pages"]) == size]
            out[f"{half}_{name}"] = {
                "questions": len(group),
                **{f"hybrid_within_{k}": within(group, "hybrid", k) for k in (READ, TOP)},
            }
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        **{f"{m}_at_{k}": within(rows, m, k) for m in METHODS for k in (3, TOP)},
        "lost_by_hybrid": [
            r["text"]
            for r in rows
            if r["bm25"] and r["bm25"] <= 3 and not (r["hybrid"] and r["hybrid"] <= 3)
        ],
    }


def main() -> int:
    with isolated("ponder-heldout-retrieval-"):
        figures = retrieval_figures(lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    print(json.dumps(figures["halves"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
