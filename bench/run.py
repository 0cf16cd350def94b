"""`make bench`: what research costs, measured. Prints a table, writes bench/results.json.

Everything runs on this machine against the test rig (scripted replies, or the real gemma3
270M through the Ollama API) over a corpus generated here; nothing leaves 127.0.0.1.

One module per benchmark, each named as its figures are in the JSON:

- prompt growth (growth.py): prompt tokens per round, rounds 1-8 of one long run (target:
  no later round > 15 % above the first two)
- cost per run (tiny_cost.py): LLM calls and tokens, focused runs of 1-3 rounds and a deep
  run with three researchers (tiny model), and ponder's own overhead: wall time not spent
  waiting on the model or search (target < 2 %)
- parallelism: 5 queries vs 1 against a slow SearXNG (parallel_queries.py, target ≤ 1.5×);
  3 researchers vs 1 against a slow scripted rig (parallel_researchers.py, target ≥ 2.5×
  faster); a deep run on 2 one-at-a-time hosts vs 1 (several_hosts.py, target ≥ 1.7×)
- research quality (quality.py): 24 questions over a pydoc corpus, answer page found and
  cited, tokens and wall time, next to the figures measured before issue 10 (target with the
  tiny model: found for ≥ 90 % of questions at fewer tokens per question than before); the
  same with SmolLM2-135M-Instruct, which has no "before", is the part ``smol``: 24 questions
  at about 30 s each, so only ``--only smol`` (``make bench-smol``) runs it
- held-out questions (heldout.py): 43 questions of the Python FAQ that its answers link to
  library pages, never seen while ponder's rules were written, split into a development
  and a test half, over ``search=local`` and a snippets-only SearXNG-shaped search of the
  real HTML docs: answer pages found and cited, tokens per question (targets on the test
  half: cited for 90 % of one-page questions, both for 80 % of two-page ones, at no more
  tokens than before); an hour and more with the tiny model, so only ``--only heldout``
  (``make bench-heldout``) runs it
- Kiwix ZIM archives (zim.py): the quality benchmark's questions over ZIM archives of the
  docs' library pages, with a full-text index and with titles only, beside the same pages
  as documents (targets with the tiny model: cited as often with the full-text index, two
  thirds as often with titles only), and search latency by archive size; about 40 min, so
  only ``--only zim`` (``make bench-zim``) runs it
- questions with two parts (multipart.py): 12 questions whose parts two pydoc pages answer,
  both pages found and cited, tokens and wall time, next to the figures measured before
  aspects (target with the tiny model: both cited for ≥ 10 of 12, at no more tokens per
  question than the quality benchmark's single-part questions)
- what semantic search buys (paraphrase.py): 36 questions worded unlike their pydoc page,
  answer page @1/@3 with BM25 alone and hybrid with multilingual-e5-small behind the rig
  (the old rank fusion beside it), embedding throughput and hybrid query latency (target:
  hybrid @3 ≥ 90 %, no question BM25 finds lost, among them questions naming identifiers)
- strong prose (strong_prose.py): 50 reports of the Python docs' own prose, arranged as a
  capable model writes, streamed as the model's report: the share kept whole and why not;
  citation precision with 30 % of citations misdirected (target: ≥ 98 % kept, ≥ 95 %
  precise, issue 18)
- hostile pages (hostile.py): one run whose results lead to pages built to freeze or
  exhaust a reader, beside an honest one: wall time and the peak memory of the run's
  process tree (target: under 30 s and 1 GB, issue 31)
- the web UI (ui.py): its overhead on a run's wall time (target < 1 %), a streamed token's
  way to the page (target: median < 100 ms) and the first paint (target < 300 ms); a
  finished focused report's page height (ui_height.py, target ≤ 1.5 windows at 1280×900)
- exports (exports.py): the seconds each format (PDF, DOCX, ODT, BibTeX, …) takes for a
  deep report of twenty and more sources (target: the PDF in under 5 s)
- budgets (budgets.py): a paced rig's run with a time budget of 60 % of an unbudgeted run's
  time (target: ends at most 10 % past it, with a cited report), and with token budgets of
  50-90 % of its tokens (target: never more, always a cited report); the same with the tiny
  model in the default mode, which hands a broad question to the deep pipeline
  (budgets_tiny.py)
- local search (bench_search.py), document extraction and indexing (documents.py), the
  formats people keep (formats.py: the same FAQ questions over sixty Python docs pages as
  DOCX, ODT, EPUB, PPTX, notebooks, LaTeX, Org and Markdown, answer pages found as in the
  HTML originals), vector search (vectors.py) and start-up times (startup.py)

The rig benchmarks research a corpus about tides (tides.py); every benchmark runs in its own
folders, with none of the user's PONDER_ settings (workspace.py); table.py prints the table,
and render.py writes docs/benchmarks.md and the README's headline figures from results.json.
results.json also keeps each part's time and the load average when it ended (``parts``).

Run: ``make bench`` (or ``PYTHONPATH=src python bench/run.py``; ``--no-tiny`` skips the
real model, ``--no-search`` the local-search benchmark, ``--no-quality`` the quality
benchmark, ``--no-prose`` the strong-prose benchmark, ``--tiny-growth`` adds the 8-round
prompt-growth run with the real model, ``--only`` runs some parts again and keeps the
others' figures). ``--quick`` (``make bench-quick``) measures the headline figures on a
subset, beside the last full run's, without touching results.json (quick.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workspace import BENCH, isolated

# Parts that run only when named in --only; a whole run keeps their last figures.
OPTIONAL = ("smol", "heldout", "zim")


def steps(args: argparse.Namespace, work: Path) -> list[tuple[str, Callable[[], Any]]]:
    """The benchmarks to run, named as in the JSON, in the order they run. A benchmark's
    module is imported only when it runs (some need packages the others do not)."""
    from budgets import bench_budgets
    from exports import bench_exports
    from growth import bench_growth_scripted
    from hostile import bench_hostile
    from parallel_queries import bench_queries
    from parallel_researchers import bench_researchers
    from several_hosts import bench_hosts
    from startup import bench_startup
    from tides import make_corpus, note
    from ui import bench_ui
    from ui_height import bench_report_height

    corpus = make_corpus(work / "corpus")
    chosen: list[tuple[str, Callable[[], Any]]] = [
        ("growth_scripted", lambda: bench_growth_scripted(corpus)),
        ("parallel_queries", bench_queries),
        ("parallel_researchers", lambda: bench_researchers(corpus)),
        ("several_hosts", lambda: bench_hosts(corpus)),
        ("startup", bench_startup),
        ("ui", lambda: bench_ui(corpus)),
        ("ui_height", bench_report_height),
        ("hostile", bench_hostile),
        ("exports", lambda: bench_exports(work)),
        ("budgets", lambda: bench_budgets(work)),
    ]
    if not args.no_tiny:
        from budgets_tiny import bench_budgets_tiny
        from tiny_cost import bench_tiny
        from watches import bench_watches

        chosen.append(("tiny", lambda: bench_tiny(corpus, growth=args.tiny_growth)))
        chosen.append(("watches", lambda: bench_watches(work)))
        chosen.append(("budgets_tiny", lambda: bench_budgets_tiny(work)))
    if not args.no_quality:
        from multipart import multipart_figures
        from paraphrase import run_paraphrase_bench
        from quality import quality_figures

        models = ["scripted"] if args.no_tiny else ["scripted", "tiny"]
        chosen.append(("quality", lambda: quality_figures(models, log=note)))
        chosen.append(("multipart", lambda: multipart_figures(models, log=note)))
        chosen.append(("paraphrase", run_paraphrase_bench))
    if not args.no_prose:
        from strong_prose import run_strong_prose_bench

        # 50 reports, faithful and with 30 % of citations misdirected.
        chosen.append(
            ("strong_prose", lambda: run_strong_prose_bench(50, misdirect_share=0.3, log=note))
        )
    if not args.no_search:
        from bench_search import run_search_bench
        from documents import run_documents_bench
        from formats import run_formats_bench
        from vectors import run_vectors_bench

        chosen.append(("search", run_search_bench))
        chosen.append(("documents", run_documents_bench))
        chosen.append(("formats", lambda: run_formats_bench(log=note)))
        chosen.append(("semantic", lambda: run_vectors_bench(tiny=not args.no_tiny)))
    if args.only and "smol" in args.only:  # only when asked for by name
        from quality import quality_figures

        chosen.append(("smol", lambda: quality_figures(["smol"], log=note)))
    if args.only and "heldout" in args.only:
        from heldout import heldout_figures

        chosen.append(("heldout", lambda: heldout_figures(log=note)))
    if args.only and "zim" in args.only:
        from zim import zim_figures

        chosen.append(("zim", lambda: zim_figures(log=note)))
    return [(name, step) for name, step in chosen if not args.only or name in args.only]


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.py")
    parser.add_argument("--no-tiny", action="store_true", help="skip the real-model runs")
    parser.add_argument("--no-search", action="store_true", help="skip the local-search bench")
    parser.add_argument(
        "--no-quality", action="store_true", help="skip the research-quality bench (~10 min)"
    )
    parser.add_argument(
        "--no-prose", action="store_true", help="skip the strong-prose bench (~5 min)"
    )
    parser.add_argument(
        "--tiny-growth", action="store_true", help="also run 8 rounds with the tiny model (~4 min)"
    )
    parser.add_argument(
        "--only",
        nargs="*",
        help="run only these parts (names as in the JSON; `smol`, `heldout`, `zim` run only "
        "when named)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="the headline figures on a subset (a few minutes)"
    )
    return parser.parse_args(argv)


def merge(
    earlier: dict[str, Any],
    measured: dict[str, Any],
    parts: dict[str, Any],
    machine: dict[str, Any],
    took: float | None,
) -> dict[str, Any]:
    """results.json after a run. ``took`` is a whole run's time: its figures replace every
    part's but the optional ones'. Without it (a partial run, or a whole one not finished
    yet) the figures measured replace theirs and the others stay, with the machine and the
    time of the last whole run."""
    whole = took is not None

    def keep(found: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in found.items() if not whole or k in OPTIONAL}

    results = {**keep(earlier), **measured}
    results["machine"] = machine if whole else earlier.get("machine", machine)
    results["bench_seconds"] = took if whole else earlier.get("bench_seconds")
    results["parts"] = {**keep(earlier.get("parts") or {}), **parts}
    return results


def save(results: dict[str, Any]) -> None:
    """results.json, docs/benchmarks.md and the README's headline figures."""
    from render import write

    (BENCH / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    write(results)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.quick:
        from quick import run_quick

        return run_quick()
    started = time.perf_counter()
    machine = {
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "load_at_start": round(os.getloadavg()[0], 1),
    }
    target = BENCH / "results.json"
    earlier = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    measured: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    with isolated() as work:
        for name, step in steps(args, work):
            began = time.perf_counter()
            print(f"… {name}", file=sys.stderr, flush=True)
            measured[name] = step()
            took = time.perf_counter() - began
            # The load as the part ended: its times and rates are read against it.
            parts[name] = {"seconds": round(took, 1), "load": round(os.getloadavg()[0], 1)}
            print(f"  {name}: {took:.1f} s", file=sys.stderr, flush=True)
            # Kept at once: a bench stopped later loses none of the parts it finished.
            save(merge(earlier, measured, parts, machine, None))
    took = round(time.perf_counter() - started, 1)
    whole = not (args.only or args.no_tiny or args.no_search or args.no_quality or args.no_prose)
    results = merge(earlier, measured, parts, machine, took if whole else None)
    save(results)
    from table import print_table

    print_table(results)
    print(f"\nbench took {took} s; figures in bench/results.json and docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
