"""`make bench-quick`: the headline figures in a few minutes, beside the last full run's.

The benchmarks behind the headline figures run on their first questions or reports
(``headline.QUICK``) with gemma3 270M, the paraphrased questions whole. Each figure is
printed three times: this run's, the last full run's on the same questions (from the rows
in bench/results.json), and the last full run's on all of them. A change that moves a
headline figure shows in the first two columns; the page and the README keep the full
run's figures, so this writes only ``.bench/quick.json``.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import headline
from tides import note
from workspace import BENCH, ROOT, isolated

OUT = ROOT / ".bench" / "quick.json"


def measure() -> dict[str, Any]:
    from multipart import multipart_figures
    from paraphrase import run_paraphrase_bench
    from quality import quality_figures
    from strong_prose import run_strong_prose_bench

    first = headline.QUICK
    steps = {
        "quality": lambda: quality_figures(["tiny"], log=note, limit=first["quality"]),
        "multipart": lambda: multipart_figures(["tiny"], log=note, limit=first["multipart"]),
        "strong_prose": lambda: run_strong_prose_bench(first["strong_prose"], 0.3, log=note),
        "paraphrase": run_paraphrase_bench,
    }
    results: dict[str, Any] = {"parts": {}}
    with isolated():
        for name, step in steps.items():
            began = time.perf_counter()
            print(f"… {name}", file=sys.stderr, flush=True)
            results[name] = step()
            results["parts"][name] = {"seconds": round(time.perf_counter() - began, 1)}
    return results


def run_quick() -> int:
    started = time.perf_counter()
    quick = measure()
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(quick, indent=2) + "\n", encoding="utf-8")
    full_path = BENCH / "results.json"
    full = json.loads(full_path.read_text(encoding="utf-8")) if full_path.exists() else {}
    columns = zip(
        headline.FIGURES,
        headline.values(quick, headline.QUICK),
        headline.values(full, headline.QUICK),
        headline.values(full),
        strict=True,
    )
    rows = [("headline figure", "this quick run", "last full run, same", "last full run")]
    for figure, now, same, whole in columns:
        subset = headline.QUICK.get(figure.part)
        what = figure.what + (f" (first {subset})" if subset else "")
        rows.append((what, now, same, whole))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))
    took = time.perf_counter() - started
    print(f"\nbench-quick took {took:.0f} s; figures in {OUT.relative_to(ROOT)}")
    return 0
