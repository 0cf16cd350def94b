"""The bench's table: one line per figure, each with its target when it has one.

One function per benchmark turns its figures (as in bench/results.json) into rows; a
benchmark that did not run has no rows.
"""

from __future__ import annotations

from typing import Any

Rows = list[tuple[str, str]]


def mark(ok: bool | None) -> str:
    return "" if ok is None else ("  ✓ target met" if ok else "  ✗ target MISSED")


def part_rows(results: dict[str, Any]) -> list[tuple[str, Rows]]:
    """Each part that ran (named as in the JSON) with its rows, in the table's order: the
    table prints them one after the other, docs/benchmarks.md a section each."""
    from budgets import table_rows as budgets_rows
    from budgets_tiny import table_rows as budgets_tiny_rows
    from exports import table_rows as exports_rows
    from heldout import table_rows as heldout_rows
    from hostile import table_rows as hostile_rows
    from multipart import table_rows as multipart_rows
    from strong_prose import table_rows as strong_prose_rows
    from ui import table_rows as ui_rows
    from ui_height import table_rows as ui_height_rows
    from watches import table_rows as watches_rows

    search = results.get("search") or {}
    parts: list[tuple[str, Rows]] = [
        (
            "growth_scripted",
            growth_rows(results.get("growth_scripted"), (results.get("tiny") or {}).get("growth")),
        ),
        ("tiny", tiny_rows(results.get("tiny") or {})),
        *(
            (name, parallel_rows({name: results.get(name)}))
            for name in ("parallel_queries", "parallel_researchers", "several_hosts")
        ),
        ("paraphrase", paraphrase_rows(results.get("paraphrase"))),
        ("quality", quality_rows(quality_view(results))),
        (
            "multipart",
            multipart_rows(results.get("multipart") or {}, _single_part_tokens(results)),
        ),
        ("heldout", heldout_rows(results.get("heldout") or {})),
        ("search", [*search_rows(search), *reader_rows(search)]),
        (
            "strong_prose",
            strong_prose_rows(results["strong_prose"]) if results.get("strong_prose") else [],
        ),
        ("documents", document_rows(results.get("documents") or {})),
        ("semantic", semantic_rows(results.get("semantic") or {})),
        ("startup", startup_rows(results.get("startup"))),
        ("ui", ui_rows(results.get("ui") or {})),
        ("ui_height", ui_height_rows(results.get("ui_height") or {})),
        ("hostile", hostile_rows(results.get("hostile") or {})),
        ("exports", exports_rows(results.get("exports") or {})),
        ("budgets", budgets_rows(results.get("budgets") or {})),
        ("budgets_tiny", budgets_tiny_rows(results.get("budgets_tiny") or {})),
        ("watches", watches_rows(results.get("watches") or {})),
    ]
    return [(name, rows) for name, rows in parts if rows]


def quality_view(results: dict[str, Any]) -> dict[str, Any]:
    """The quality benchmark's figures with SmolLM2's, which its own part measures."""
    smol = (results.get("smol") or {}).get("smol")
    return {**(results.get("quality") or {}), **({"smol": smol} if smol else {})}


def print_table(results: dict[str, Any]) -> None:
    rows = [row for _, part in part_rows(results) for row in part]
    width = max((len(name) for name, _ in rows), default=0)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def growth_rows(scripted: dict[str, Any] | None, tiny: dict[str, Any] | None) -> Rows:
    rows = []
    if scripted:
        rows.append(
            (
                "prompt tokens/round (scripted)",
                " ".join(map(str, scripted["prompt_tokens_per_round"]))
                + f"  peak of r3-r8 vs r1-r2 {scripted['peak_after_round2_vs_first_two_pct']:+}%"
                + mark(scripted.get("target_met")),
            )
        )
    if tiny:
        peak = (
            f"  peak of r3-r8 vs r1-r2 {tiny['peak_after_round2_vs_first_two_pct']:+}%"
            if "target_met" in tiny
            else ""
        )
        rows.append(
            (
                "prompt tokens/round (tiny)",
                " ".join(map(str, tiny["prompt_tokens_per_round"]))
                + peak
                + mark(tiny.get("target_met")),
            )
        )
    return rows


def _cost(c: dict[str, Any]) -> str:
    return (
        f"{c['llm_calls']} calls, {c['total_tokens']} tokens "
        f"({c['prompt_tokens']} in / {c['completion_tokens']} out), {c['wall_seconds']} s"
    )


def tiny_rows(tiny: dict[str, Any]) -> Rows:
    rows = [
        (f"cost focused {name.replace('_', ' ')}", _cost(c))
        for name, c in (tiny.get("focused") or {}).items()
    ]
    if tiny.get("deep_3_researchers"):
        rows.append(("cost deep, 3 researchers (tiny)", _cost(tiny["deep_3_researchers"])))
    if tiny.get("overhead"):
        o = tiny["overhead"]
        rows.append(
            (
                "own overhead (tiny, 3 rounds)",
                f"{o['own_seconds']} s of {o['wall_seconds']} s = {o['own_pct']}% "
                f"(model {o['model_seconds']} s, search {o['search_seconds']} s)"
                + mark(o["target_met"]),
            )
        )
    return rows


def parallel_rows(results: dict[str, Any]) -> Rows:
    rows = []
    if results.get("parallel_queries"):
        p = results["parallel_queries"]
        rows.append(
            (
                f"5 queries vs 1 (searxng +{p['server_delay_s']} s)",
                f"{p['five_query_round_s']} s vs {p['one_query_round_s']} s = {p['ratio']}×"
                + mark(p["target_met"]),
            )
        )
    if results.get("parallel_researchers"):
        p = results["parallel_researchers"]
        rows.append(
            (
                f"3 researchers vs 1 (+{p['delay_per_call_s']} s/call)",
                f"{p['1_concurrent']['researcher_phase_s']} s vs "
                f"{p['3_concurrent']['researcher_phase_s']} s = "
                f"{p['speedup_researcher_phase']}× faster (whole run {p['speedup_whole_run']}×)"
                + mark(p["target_met"]),
            )
        )
    if results.get("several_hosts"):
        h = results["several_hosts"]
        rows.append(
            (
                f"deep run, 2 Ollama hosts vs 1 (+{h['delay_per_call_s']} s/call)",
                f"{h['1_hosts']['run_wall_s']} s vs {h['2_hosts']['run_wall_s']} s = "
                f"{h['speedup']}× faster, calls per host {h['2_hosts']['calls_per_host']}"
                + mark(h["target_met"]),
            )
        )
    return rows


def paraphrase_rows(s: dict[str, Any] | None) -> Rows:
    if not s:
        return []
    return [
        (
            f"paraphrased questions ({s['questions']}), answer page @1/@3",
            f"BM25 {s['bm25_at_1_pct']}/{s['bm25_at_3_pct']}%, hybrid e5-small "
            f"{s['hybrid_at_1_pct']}/{s['hybrid_at_3_pct']}%, lost "
            f"{len(s['lost_by_hybrid'])}; "
            + (
                f"{s['passages_per_second']} passages/s embedded, "
                if s.get("passages_per_second")
                else "index kept (no embedding rate), "
            )
            + f"query {s['hybrid_query_ms_p50']} ms"
            + mark(s["target_met"]),
        )
    ]


def _single_part_tokens(results: dict[str, Any]) -> float | None:
    tiny = ((results.get("quality") or {}).get("tiny") or {}).get("after") or {}
    return tiny.get("tokens_per_question")


def quality_rows(quality: dict[str, Any]) -> Rows:
    rows = []
    for kind in ("scripted", "tiny", "smol"):
        for when in ("before", "after"):
            if when not in quality.get(kind, {}):
                continue
            q = quality[kind][when]
            rows.append(
                (
                    f"quality {kind}, {when}",
                    f"answer page found {q['found_pct']}%, cited {q['cited_pct']}%, "
                    f"{q['sources_per_question']} sources, {q['tokens_per_question']:.0f} "
                    f"tokens, {q['wall_seconds_per_question']} s (report "
                    f"{q['report_seconds_per_question']} s), echo {q['prompt_echo_pct']}%, "
                    f"repeated line {q['repeated_line_pct']}%"
                    + (mark(quality.get("target_met")) if kind == "tiny" else ""),
                )
            )
    return rows


def search_rows(search: dict[str, Any]) -> Rows:
    return [
        (
            f"local search {s['docs']} docs",
            f"{s['docs_per_second']} docs/s, p50 {s['query_p50_ms']} ms, "
            f"p95 {s['query_p95_ms']} ms",
        )
        for s in (search[key] for key in ("index_1000", "index_10000") if key in search)
    ]


def reader_rows(search: dict[str, Any]) -> Rows:
    if "reader" not in search:
        return []
    r = search["reader"]
    return [("reader 10 pages vs 1", f"{r['ten_pages_s']} s vs {r['one_page_s']} s")]


def startup_rows(s: dict[str, Any] | None) -> Rows:
    if not s:
        return []
    return [
        (
            "start-up (median of 5)",
            f"import ponder {s['import_ponder_s']} s, ponder --help {s['ponder_help_s']} s "
            f"(exit {s['ponder_help_exit_code']}), bare python {s['python_bare_s']} s",
        )
    ]


def document_rows(documents: dict[str, Any]) -> list[tuple[str, str]]:
    if not documents:
        return []
    corpus = documents["corpus"]
    html, pdf = documents["html_extraction"], documents["pdf_extraction"]
    rows = [
        (
            "HTML extraction, 1 process",
            f"trafilatura {html['trafilatura']['files_per_s']} files/s, "
            f"lexbor {html['lexbor']['files_per_s']} files/s ({corpus['html_files']} pydoc pages)",
        ),
        (
            "PDF extraction, 1 process",
            f"pypdf {pdf['pypdf']['pages_per_s']} pages/s, pdfium {pdf['pdfium']['pages_per_s']} "
            f"pages/s ({pdf['speedup']}×, {corpus['pdf_pages']} pages)",
        ),
    ]
    targets = documents["targets"]
    for kind in ("html", "pdf"):
        for processes, build in documents[f"{kind}_index"].items():
            html_build = kind == "html"
            unit = f"{build['mb_per_s']} MB/s" if html_build else f"{build['pages_per_s']} pages/s"
            target = targets["html_100_files_per_s"] if html_build else targets["pdf_5x_pypdf"]
            rows.append(
                (
                    f"index {kind.upper()}, {processes.replace('_', ' ')}",
                    f"{build['files_per_s']} files/s, {unit}" + mark(target),
                )
            )
    return rows


def semantic_rows(semantic: dict[str, Any]) -> list[tuple[str, str]]:
    if not semantic:
        return []
    store = semantic["store"]
    vec = store["sqlite_vec"]
    other = (
        ", ".join(f"sqlite-vec {kind} {f['p50_ms']} ms" for kind, f in vec.items())
        if "not_measured" not in vec
        else f"sqlite-vec not measured ({vec['not_measured']})"
    )
    rows = [
        (
            f"vector query, {store['passages']:,} × {store['dimensions']}",
            f"numpy memmap p50 {store['numpy_memmap']['p50_ms']} ms "
            f"(p95 {store['numpy_memmap']['p95_ms']}); {other}"
            + mark(semantic["chosen_is_fastest"]),
        ),
        (
            "hybrid query, pydoc text",
            f"BM25 p50 {semantic['hybrid']['bm25_only']['p50_ms']} ms, BM25 + vectors "
            f"{semantic['hybrid']['hybrid_with_query_embedding']['p50_ms']} ms "
            f"({semantic['hybrid']['passages']:,} passages)",
        ),
    ]
    if "tiny_embedding" in semantic:
        tiny = semantic["tiny_embedding"]
        rows.append(
            (
                "embedding, gemma3 270M on CPU",
                f"{tiny['passages_per_s']} passages/s ({tiny['chars_each']} chars each)",
            )
        )
    return rows
