"""Strong prose: does ponder keep a capable model's report, and are its citations right?

Human-written pages stand in for a capable model: each report is generated at run time
from 3-6 related pages of the Python 3.11 documentation (Debian's ``python3.11-doc``,
fetched into ``.cache``) by ``ponder.testing.prose``: title, uncited introduction,
sections, lists, tables, code, each sentence cited to the page it came from. Each report
is written in a full ``ponder.stream`` run (``search=local`` over its pages, ``mode=loop``,
one round) by the rig's scripted model, streamed a word at a time. Two passes:

- faithful citations: the share of reports kept whole (the body is the model's text, with
  only ponder's title line, Sources list and renumbering), and why not (what stopped the
  stream, extractive reports, code or prose altered);
- 30 % of citations misdirected to another retrieved page: citation precision in the
  final reports, supported sentences that lost their citation, wrong ones re-pointed;
- and for both, wall time per report and how much of the cited text the run read.

Run: ``python bench/strong_prose.py [--reports N] [--misdirect 0.3] [--out FILE]``.
``bench/run.py`` runs it as part of ``make bench`` (figures under ``strong_prose``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from workspace import ROOT, isolated


def run_strong_prose_bench(
    reports: int = 50, misdirect_share: float = 0.3, log: Callable[[str], None] | None = None
) -> dict[str, Any]:
    from ponder.testing import pydocs
    from ponder.testing.prose import assess, generate, misdirect, write_in_a_run

    root = pydocs.fetch(ROOT / ".cache")
    work = Path(tempfile.mkdtemp(prefix="ponder-prose-"))
    passes = [("faithful", 0.0)] + ([("misdirected", misdirect_share)] if misdirect_share else [])
    results: dict[str, Any] = {"reports": reports, "docs": pydocs.PACKAGE}
    for name, share in passes:
        rows = []
        for seed in range(reports):
            report = generate(root, seed)
            if share:
                report = misdirect(report, share, seed)
            written = asyncio.run(write_in_a_run(report, work / f"{name}-{seed}"))
            row = asdict(assess(written))
            rows.append(row)
            if log:
                words, wall = row["words"], row["wall_seconds"]
                log(f"{name} {seed:>3}: {_verdict(row)}  {words} words, {wall} s")
        results[name] = {"summary": summarise(rows), "rows": [_compact(r) for r in rows]}
    return results


def _verdict(row: dict[str, Any]) -> str:
    if row["kept_whole"]:
        return "kept whole"
    return "not kept: " + "; ".join(_why(row))


def _why(row: dict[str, Any]) -> list[str]:
    reasons = [f"stopped: {_kind(row['discarded'][0])}"] if row["discarded"] else []
    if row["extractive"]:
        return [*reasons, "extractive report"]
    if not row["code_kept"]:
        reasons.append("code block altered")
    if row.get("texts_cut"):
        reasons.append("cut where it degenerated")
    elif not row["prose_kept"]:
        reasons.append("prose altered")
    return reasons


def _kind(reason: str) -> str:
    """A reason without its quote: "a line is repeated ('…')" → "a line is repeated"."""
    return re.sub(r"\s*\(.*\)\s*$", "", reason).strip()


def pct(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    count = len(rows)
    walls = [r["wall_seconds"] for r in rows]
    first_reasons = Counter(_kind(r["discarded"][0]) for r in rows if r["discarded"])
    supported = sum(r["supported"] for r in rows)
    written = [r for r in rows if not r["extractive"]]
    cited = sum(r["cited"] for r in rows)
    return {
        "reports": count,
        "misdirected_share": rows[0]["misdirected"] if rows else 0.0,
        "kept_whole": sum(r["kept_whole"] for r in rows),
        "prose_kept": sum(r["prose_kept"] for r in rows),
        "citations_kept": sum(r["citations_kept"] for r in rows),
        "texts_cut": sum(r["texts_cut"] for r in rows),
        "citations_repointed": sum(r["citations_repointed"] for r in rows),
        "citations_added": sum(r["citations_added"] for r in rows),
        "sentences_unsupported": sum(r["sentences_unsupported"] for r in rows),
        "not_stopped_not_extractive": sum(not r["discarded"] and not r["extractive"] for r in rows),
        "extractive": sum(r["extractive"] for r in rows),
        "stopped_reports": sum(bool(r["discarded"]) for r in rows),
        "generations_stopped": sum(r["generations_stopped"] for r in rows),
        "first_stop_reasons": dict(first_reasons.most_common()),
        "why_not_kept": dict(
            Counter(w for r in rows if not r["kept_whole"] for w in _why(r)).most_common()
        ),
        "code_altered_not_extractive": sum(
            not r["code_kept"] and not r["extractive"] for r in rows
        ),
        "cited_sentences": cited,
        "citation_precision_pct": pct(sum(r["correct"] for r in rows), cited),
        # Only reports whose body is the model's text (an extractive one is ponder's own).
        "written_reports": len(written),
        "written_cited_sentences": sum(r["cited"] for r in written),
        "written_citation_precision_pct": pct(
            sum(r["correct"] for r in written), sum(r["cited"] for r in written)
        ),
        "cited_text_unplaced": sum(r["unplaced"] for r in rows),
        "supported_in_model_text": supported,
        "supported_lost_wrong": sum(r["supported_wrong"] for r in rows),
        "supported_lost_uncited": sum(r["supported_uncited"] for r in rows),
        "supported_dropped": sum(r["supported_dropped"] for r in rows),
        "misdirected_in_model_text": sum(r["misdirected_in"] for r in rows),
        "misdirected_now_correct": sum(r["misdirected_fixed"] for r in rows),
        "cited_text_read_pct": pct(sum(r["read"] for r in rows), sum(r["cited_in"] for r in rows)),
        "words_mean": round(statistics.mean(r["words"] for r in rows)) if rows else 0,
        "words_min": min((r["words"] for r in rows), default=0),
        "words_max": max((r["words"] for r in rows), default=0),
        "wall_seconds_mean": round(statistics.mean(walls), 2) if rows else 0.0,
        "wall_seconds_median": round(statistics.median(walls), 2) if rows else 0.0,
        "wall_seconds_max": round(max(walls), 2) if rows else 0.0,
        "report_seconds_mean": round(statistics.mean(r["report_seconds"] for r in rows), 2)
        if rows
        else 0.0,
        "unnumbered_pages": sum(len(r["unnumbered_pages"]) for r in rows),
    }


_ROW_FIELDS = "seed words pages kept_whole cited correct supported wall_seconds report_seconds"


def _compact(row: dict[str, Any]) -> dict[str, Any]:
    """A report's row for results.json: the figures, and why it was not kept whole."""
    lost = row["supported_wrong"] + row["supported_uncited"] + row["supported_dropped"]
    figures = {key: row[key] for key in _ROW_FIELDS.split()}
    return {**figures, "supported_lost": lost, "why_not_kept": _why(row)}


def table_rows(results: dict[str, Any]) -> list[tuple[str, str]]:
    """Lines for bench/run.py's table (and this script's own)."""
    rows: list[tuple[str, str]] = []
    faithful = results.get("faithful", {}).get("summary")
    if faithful:
        n = faithful["reports"]
        rows += [
            (
                f"strong prose kept whole ({n} reports)",
                f"{faithful['kept_whole']}/{n} (prose kept {faithful['prose_kept']}/{n}, "
                f"not stopped nor extractive {faithful['not_stopped_not_extractive']}/{n}; "
                f"{faithful['words_min']}-{faithful['words_max']} words)",
            ),
            ("strong prose, why not kept", _counts(faithful["why_not_kept"])),
            ("strong prose, first stop reason", _counts(faithful["first_stop_reasons"])),
            (
                "strong prose, time per report",
                f"mean {faithful['wall_seconds_mean']} s, median "
                f"{faithful['wall_seconds_median']} s, max {faithful['wall_seconds_max']} s "
                f"(report step {faithful['report_seconds_mean']} s)",
            ),
        ]
    wrong = results.get("misdirected", {}).get("summary")
    if wrong:
        lost = (
            wrong["supported_lost_wrong"]
            + wrong["supported_lost_uncited"]
            + wrong["supported_dropped"]
        )
        rows += [
            (
                f"strong prose, {wrong['misdirected_share']:.0%} misdirected",
                f"citation precision {wrong['citation_precision_pct']}% of "
                f"{wrong['cited_sentences']} cited sentences "
                f"({wrong['written_citation_precision_pct']}% in the "
                f"{wrong['written_reports']} reports not extractive); misdirected now "
                f"correct {wrong['misdirected_now_correct']}/{wrong['misdirected_in_model_text']}",
            ),
            (
                "strong prose, supported lost citation",
                f"{lost} of {wrong['supported_in_model_text']} ({wrong['supported_lost_wrong']} "
                f"cited wrongly, {wrong['supported_lost_uncited']} uncited, "
                f"{wrong['supported_dropped']} dropped); cited text read by the run "
                f"{wrong['cited_text_read_pct']}%",
            ),
        ]
    return rows


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{reason} {n}" for reason, n in counts.items()) or "none"


def _log(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/strong_prose.py")
    parser.add_argument("--reports", type=int, default=50, help="reports per pass (seeds 0..N-1)")
    parser.add_argument(
        "--misdirect", type=float, default=0.3, help="share of citations misdirected (0: skip)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write figures and rows here")
    args = parser.parse_args(argv)
    from ponder.testing.pydocs import DocsMissing

    try:
        with isolated("ponder-prose-home-"):
            results = run_strong_prose_bench(args.reports, args.misdirect, _log)
    except DocsMissing as exc:
        print(exc, file=sys.stderr)
        return 1
    for name in ("faithful", "misdirected"):
        if name in results:
            print(name, json.dumps(results[name]["summary"]))
    width = max(len(name) for name, _ in table_rows(results))
    for name, value in table_rows(results):
        print(f"{name:<{width}}  {value}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
