"""`make bench`: what research costs, measured. Prints a table, writes bench/results.json.

Everything runs on this machine against the test rig (scripted replies, or the real gemma3
270M through the Ollama API) over a corpus generated here; nothing leaves 127.0.0.1.

- prompt growth: prompt tokens per round, rounds 1-8 of one long run (target: round 8
  within 15 % of round 2)
- cost per run: LLM calls and tokens, focused runs of 1-3 rounds and a deep run with three
  researchers (tiny model)
- own overhead: wall time not spent waiting on the model or search (target < 2 %)
- parallelism: 5 queries vs 1 against a slow SearXNG (target ≤ 1.5×); 3 researchers vs 1
  against a slow scripted rig (target ≥ 2.5× faster)
- research quality (quality.py): 24 questions over a pydoc corpus, answer page found and
  cited, tokens and wall time, next to the figures measured before issue 10 (target with the
  tiny model: found for ≥ 90 % of questions at fewer tokens per question than before); the
  same with SmolLM2-135M-Instruct, which has no "before"
- what semantic search buys (paraphrase.py): 36 questions worded unlike their pydoc page,
  answer page @1/@3 with BM25 alone and hybrid with multilingual-e5-small behind the rig
  (the old rank fusion beside it), embedding throughput and hybrid query latency (target:
  hybrid @3 ≥ 90 %, no question BM25 finds lost, among them questions naming identifiers)
- strong prose (strong_prose.py): 50 reports of the Python docs' own prose, arranged as a
  capable model writes, streamed as the model's report: the share kept whole and why not;
  citation precision with 30 % of citations misdirected (target: ≥ 98 % kept, ≥ 95 %
  precise, issue 18)
- local search (bench_search.py) and start-up times

Run: ``make bench`` (or ``PYTHONPATH=src python bench/run.py``; ``--no-tiny`` skips the
real model, ``--no-search`` the local-search benchmark, ``--no-quality`` the quality
benchmark, ``--no-prose`` the strong-prose benchmark, ``--tiny-growth`` adds the 8-round
prompt-growth run with the real model).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
WORK = Path(tempfile.mkdtemp(prefix="ponder-bench-"))
os.environ["PONDER_DATA_DIR"] = str(WORK / "data")
os.environ["PONDER_CACHE_DIR"] = str(WORK / "cache")
os.environ.setdefault("PONDER_MODEL_DIR", str(ROOT / ".cache"))
os.environ["LANGSMITH_TRACING"] = "false"
for _name in [n for n in os.environ if n.startswith("PONDER_") and n.endswith(("MODEL", "SEARCH"))]:
    del os.environ[_name]  # a user's own settings must not change the figures
sys.path.insert(0, str(BENCH))
try:
    import ponder  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT / "src"))

from ponder import aresearch  # noqa: E402
from ponder.report import Report  # noqa: E402
from ponder.testing import TINY_MODEL, ChatRequest, LogEntry, Reply, Rig, ScriptedBackend  # noqa: E402

TOPIC = "How do tides work?"

# -- the corpus ---------------------------------------------------------------------------

_FACTS = [
    "Tides are the rise and fall of sea level caused by the Moon's and the Sun's gravity.",
    "Most coasts see two high tides and two low tides every lunar day of 24 hours 50 minutes.",
    "Spring tides happen near new and full Moon, when Sun and Moon pull in line.",
    "Neap tides happen near the quarter Moons, when the pulls are at right angles.",
    "The Bay of Fundy has the largest tidal range on Earth, over 16 metres.",
    "Tidal bulges form on the side facing the Moon and on the far side of the Earth.",
    "Harbour pilots read tide tables to bring deep ships in at high water.",
    "Tide gauges record sea level every few minutes; some records span two centuries.",
    "Friction from tides slowly lengthens the day and pushes the Moon further away.",
    "Amphidromic points are places where the tidal range is almost zero.",
]


def make_corpus(folder: Path, docs: int = 24) -> Path:
    """Documents about tides: varied paragraphs, so different queries find different text."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(docs):
        lines = [_FACTS[(i + k) % len(_FACTS)] for k in range(6)]
        body = "\n\n".join(
            f"Tide question {i + k}: {line} Sea level data from station {i}-{k} agrees."
            for k, line in enumerate(lines)
        )
        (folder / f"tides-{i:02d}.md").write_text(f"# Tide notes {i}\n\n{body}\n", "utf-8")
    return folder


# -- helpers --------------------------------------------------------------------------------


def reflection(queries: list[str]) -> dict[str, Any]:
    return {
        "is_sufficient": False,
        "knowledge_gap": "more detail",
        "follow_up_queries": queries,
        "scope": "focused",
        "subtopics": [],
    }


def fresh_followups() -> Callable[[ChatRequest], dict[str, Any]]:
    counter = itertools.count(1)
    return lambda _request: reflection([f"tide question {next(counter)}"])


class NeverSufficient:
    """The tiny model for every call, but its Reflection always asks for a new round.

    Its own output is kept (so its tokens are real) and only the decision is overridden,
    so a run has exactly ``max_loops`` rounds.
    """

    def __init__(self, tiny: Any) -> None:
        self.tiny = tiny
        self.counter = itertools.count(1)

    def answer(self, request: ChatRequest) -> Any:
        reply = self.tiny.answer(request)
        if request.schema_title == "Reflection" and isinstance(reply, Reply):
            reply.content = json.dumps(reflection([f"tide question {next(self.counter)}"]))
        return reply

    def interrupt(self) -> None:
        """The rig stops the model's generation when it stops."""
        self.tiny.interrupt()


def rounds_of(log: list[LogEntry], count: int) -> list[list[LogEntry]]:
    """Calls grouped by round: each round ends with its Reflection call, except the last,
    which asks none (its verdict could not change anything) and is followed by the report."""
    rounds: list[list[LogEntry]] = [[]]
    for entry in log:
        if entry.schema is not None:  # the report's plain-text calls belong to no round
            rounds[-1].append(entry)
        if entry.schema == "Reflection":
            rounds.append([])
    return (rounds + [[]] * count)[:count]


def run(coro: Any) -> Report:
    return asyncio.run(coro)


def base(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    return {
        "model": "scripted",
        "ollama_base_url": rig.url,
        "search": "local",
        "docs": [str(corpus)],
        "mode": "loop",
        "allow_clarification": False,
        **extra,
    }


def pct(a: float, b: float) -> float:
    return round(100.0 * (a - b) / b, 1) if b else 0.0


# -- prompt growth --------------------------------------------------------------------------


def per_round(log: list[LogEntry], count: int) -> dict[str, list[int]]:
    rounds = rounds_of(log, count)
    return {
        "prompt_tokens_per_round": [sum(e.prompt_tokens for e in r) for r in rounds],
        "summary_prompt_tokens_per_round": [
            sum(e.prompt_tokens for e in r if e.schema == "SummaryUpdate") for r in rounds
        ],
    }


def growth_figures(figures: dict[str, Any]) -> dict[str, Any]:
    """Prompts must not grow: no round after the second costs > 15 % more than the larger
    of the first two.

    Peaks are compared rather than round 8 against round 2: a round's prompt holds the new
    passages it read, so a round that read little (or nothing: no summary call) is light,
    and the last round asks no reflection. What must not happen is a later round heavier
    than the first ones, which already held a full summary and full evidence.
    """
    tokens = figures["prompt_tokens_per_round"]
    if len(tokens) >= 8:
        early, late = max(tokens[:2]), max(tokens[2:])
        figures["peak_after_round2_vs_first_two_pct"] = pct(late, early)
        figures["target_met"] = late <= early * 1.15
    return figures


def long_findings(request: ChatRequest) -> dict[str, Any]:
    """Eight long findings, each restating a source of the prompt (so each is grounded)."""
    prompt = str(request.messages[-1]["content"])
    blocks = re.findall(r'<source n="(\d+)"[^>]*>\n(.*?)\n</source>', prompt, re.S)
    findings = []
    for i in range(8):
        number, text = blocks[i % len(blocks)]
        statement = f"Point {chr(97 + i)}: " + " ".join(text.split())[:220]
        findings.append({"statement": statement, "sources": [int(number)]})
    return {"findings": findings}


def bench_growth_scripted(corpus: Path) -> dict[str, Any]:
    """Long findings every round, so the running summary is at its budget from round 2 on."""
    overrides = {"SummaryUpdate": long_findings, "Reflection": fresh_followups()}
    backend = ScriptedBackend(overrides=overrides)
    with Rig(backend) as rig:
        config = base(rig, corpus, max_loops=8, num_ctx=4096, num_predict=512, summary_tokens=400)
        report = run(aresearch(TOPIC, **config))
        figures = per_round(rig.chat_log(), report.stats.rounds)
    figures.update(rounds=report.stats.rounds, summary_tokens=400, num_ctx=4096)
    return growth_figures(figures)


def bench_growth_tiny(rig: Rig, corpus: Path) -> dict[str, Any]:
    start = len(rig.chat_log())
    config = tiny_config(rig, corpus, max_loops=8, summary_tokens=300)
    report = run(aresearch(TOPIC, **config))
    figures = per_round(rig.chat_log()[start:], report.stats.rounds)
    figures.update(rounds=report.stats.rounds, wall_seconds=report.stats.wall_seconds)
    return growth_figures(figures)


# -- cost and overhead (tiny model) -----------------------------------------------------------


def tiny_config(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    settings = {
        "model": TINY_MODEL,
        "num_ctx": 2048,
        "num_predict": 64,
        "queries_per_round": 2,
        "max_retries": 1,
        **extra,
    }
    return base(rig, corpus, **settings)


def note(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def cost(report: Report) -> dict[str, Any]:
    s = report.stats
    return {
        "rounds": s.rounds,
        "llm_calls": s.llm_calls,
        "prompt_tokens": s.prompt_tokens,
        "completion_tokens": s.completion_tokens,
        "total_tokens": s.prompt_tokens + s.completion_tokens,
        "wall_seconds": s.wall_seconds,
        "fallbacks": s.fallbacks,
    }


def overhead(report: Report) -> dict[str, Any]:
    s = report.stats
    waiting = s.model_seconds + s.search_seconds
    own = max(s.wall_seconds - waiting, 0.0)
    return {
        "wall_seconds": round(s.wall_seconds, 3),
        "model_seconds": round(s.model_seconds, 3),
        "search_seconds": round(s.search_seconds, 3),
        "own_seconds": round(own, 3),
        "own_pct": round(100 * own / s.wall_seconds, 2) if s.wall_seconds else 0.0,
        "target_met": own < 0.02 * s.wall_seconds,
    }


def bench_tiny(corpus: Path, growth: bool) -> dict[str, Any]:
    from ponder.testing.tiny import TinyModelBackend, model_path

    model_path()
    with (
        TinyModelBackend(n_ctx=4096, max_predict=64) as tiny,
        Rig(NeverSufficient(tiny), models=(TINY_MODEL,)) as rig,
    ):
        results: dict[str, Any] = {"model": TINY_MODEL, "load_seconds": round(tiny.load_seconds, 2)}
        run(aresearch(TOPIC, **tiny_config(rig, corpus, max_loops=1)))  # warm-up: caches, index
        focused = {}
        for loops in (1, 2, 3):
            report = run(aresearch(TOPIC, **tiny_config(rig, corpus, max_loops=loops)))
            focused[f"{loops}_rounds"] = cost(report)
            note(f"tiny focused, {loops} round(s): {report.stats.wall_seconds} s")
            if loops == 3:
                results["overhead"] = overhead(report)
        results["focused"] = focused
        deep = run(
            aresearch(
                "Tides: causes, harbours and the Moon",
                **tiny_config(
                    rig,
                    corpus,
                    mode="deep",
                    max_loops=1,
                    queries_per_round=1,
                    max_supervisor_rounds=1,
                    max_concurrent_researchers=3,
                ),
            )
        )
        note(f"tiny deep, 3 researchers: {deep.stats.wall_seconds} s")
        if not deep.markdown.startswith("# ") or not deep.stats.llm_calls:
            raise SystemExit(f"the tiny model's deep run wrote no report:\n{deep.markdown[:300]}")
        results["deep_3_researchers"] = {
            **cost(deep),
            "backend": "tiny",
            "overhead": overhead(deep),
        }
        if growth:
            results["growth"] = bench_growth_tiny(rig, corpus)
    return results


# -- parallelism ----------------------------------------------------------------------------


@contextmanager
def slow_searxng(delay: float) -> Iterator[str]:
    """A SearXNG JSON API on 127.0.0.1 that answers every query after ``delay`` seconds."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(delay)
            query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
            slug = "-".join(query.split())
            results = [
                {"url": f"https://web.example/{slug}/{i}", "title": query, "content": _FACTS[i]}
                for i in range(3)
            ]
            data = json.dumps({"results": results}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return None

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 64

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def bench_queries(delay: float = 0.5) -> dict[str, Any]:
    timings: dict[int, float] = {}
    with slow_searxng(delay) as searxng:
        for count in (1, 5, 1, 5):  # each measured twice; the second (warm) run counts
            # The question itself is always searched; the model adds count - 1 queries (a
            # repeat of the question adds none).
            queries = [f"tides question {i}" for i in range(count - 1)] or [TOPIC]
            backend = ScriptedBackend(
                overrides={"QueryPlan": {"rationale": "r", "queries": queries}}
            )
            with Rig(backend) as rig:
                report = run(
                    aresearch(
                        TOPIC,
                        model="scripted",
                        ollama_base_url=rig.url,
                        search="searxng",
                        searxng_url=searxng,
                        cache=False,
                        mode="loop",
                        max_loops=1,
                        queries_per_round=count,
                    )
                )
            assert report.stats.search_calls == count, report.stats
            timings[count] = report.stats.node_seconds["web_research"]
    ratio = timings[5] / timings[1]
    return {
        "server_delay_s": delay,
        "one_query_round_s": round(timings[1], 3),
        "five_query_round_s": round(timings[5], 3),
        "ratio": round(ratio, 2),
        "target_met": ratio <= 1.5,
    }


def bench_researchers(corpus: Path, delay: float = 0.3) -> dict[str, Any]:
    figures: dict[str, Any] = {"delay_per_call_s": delay}
    for slots in (3, 1):
        decisions = iter([["tide causes", "moon orbit", "harbour pilots"]])
        backend = ScriptedBackend(delay=delay)
        backend.overrides["SupervisorDecision"] = lambda _r, d=decisions: {
            "reflection": "r",
            "subtopics": next(d, []),
            "research_complete": False,
        }
        with Rig(backend) as rig:
            report = run(
                aresearch(
                    "Tides, the Moon and harbours",
                    **base(
                        rig,
                        corpus,
                        mode="deep",
                        max_loops=1,
                        max_supervisor_rounds=3,
                        max_concurrent_researchers=slots,
                    ),
                )
            )
            work = [e for e in rig.chat_log() if e.schema in ("QueryPlan", "SummaryUpdate")]
            work += [e for e in rig.chat_log() if e.schema == "Reflection"]
        phase = max(e.end for e in work) - min(e.start for e in work)
        figures[f"{slots}_concurrent"] = {
            "researcher_phase_s": round(phase, 3),
            "run_wall_s": report.stats.wall_seconds,
            "researchers": sum(1 for e in work if e.schema == "QueryPlan"),
        }
    one, three = figures["1_concurrent"], figures["3_concurrent"]
    figures["speedup_researcher_phase"] = round(
        one["researcher_phase_s"] / three["researcher_phase_s"], 2
    )
    figures["speedup_whole_run"] = round(one["run_wall_s"] / three["run_wall_s"], 2)
    figures["target_met"] = figures["speedup_researcher_phase"] >= 2.5
    return figures


def bench_hosts(corpus: Path, delay: float = 0.3) -> dict[str, Any]:
    """A deep run with 4 researchers against 1 and 2 rigs that each answer one call at a
    time after a fixed delay, like one GPU each with Ollama's default parallelism. Each
    researcher runs 4 rounds (fresh follow-up queries), so the run is mostly research, as a
    deep run on a real question is; brief, supervisor and report calls stay serial (4 of
    36 calls, so 1.8x is the ceiling)."""
    figures: dict[str, Any] = {"delay_per_call_s": delay}
    for count in (1, 2):
        with contextlib.ExitStack() as stack:
            # One backend behind every rig: the same decisions whichever rig is asked.
            topics = iter([[f"tides aspect {i}" for i in range(4)]])
            backend = ScriptedBackend(delay=delay)
            backend.overrides["SupervisorDecision"] = lambda _r, t=topics: {
                "reflection": "r",
                "subtopics": next(t, []),
                "research_complete": False,
            }
            backend.overrides["Reflection"] = fresh_followups()
            rigs = [stack.enter_context(Rig(backend, one_at_a_time=True)) for _ in range(count)]
            config = base(
                rigs[0],
                corpus,
                mode="deep",
                max_loops=4,
                max_supervisor_rounds=2,
                max_concurrent_researchers=4,
                allow_clarification=False,
            )
            config["ollama_base_url"] = ",".join(rig.url for rig in rigs)
            report = run(aresearch("Tides, the Moon and harbours", **config))
        figures[f"{count}_hosts"] = {
            "run_wall_s": report.stats.wall_seconds,
            "calls": report.stats.llm_calls,
            "calls_per_host": list(report.stats.host_calls.values()),
        }
    figures["speedup"] = round(
        figures["1_hosts"]["run_wall_s"] / figures["2_hosts"]["run_wall_s"], 2
    )
    figures["target_met"] = figures["speedup"] >= 1.7
    return figures


# -- research quality --------------------------------------------------------------------------


def bench_quality(tiny: bool) -> dict[str, Any]:
    """bench/quality.py for the scripted rig and the real models, next to the figures measured
    before issue 10 (bench/quality-before.json; SmolLM2 came later and has none)."""
    from quality import BACKENDS, run_quality_bench

    backends = list(BACKENDS) if tiny else ["scripted"]
    results = run_quality_bench(backends, log=note)
    before = json.loads((BENCH / "quality-before.json").read_text(encoding="utf-8"))
    figures: dict[str, Any] = {"corpus_pages": results["corpus_pages"]}
    for kind in backends:
        figures[kind] = {
            **({"before": before[kind]["summary"]} if kind in before else {}),
            "after": results[kind]["summary"],
            "questions": results[kind]["questions"],
        }
    if tiny:
        tiny_after, tiny_before = figures["tiny"]["after"], figures["tiny"]["before"]
        figures["target_met"] = (
            tiny_after["found_pct"] >= 90
            and tiny_after["tokens_per_question"] < tiny_before["tokens_per_question"]
        )
    return figures


def bench_strong_prose() -> dict[str, Any]:
    """bench/strong_prose.py: 50 reports, faithful and with 30 % of citations misdirected."""
    from strong_prose import run_strong_prose_bench

    return run_strong_prose_bench(reports=50, misdirect_share=0.3, log=note)


# -- start-up ----------------------------------------------------------------------------------


def median_seconds(args: list[str], repeat: int = 5) -> tuple[float, int]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *sys.path[1:2]])}
    times, code = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(args, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
        code = done.returncode
    return round(statistics.median(times), 3), code


def bench_startup() -> dict[str, Any]:
    python = sys.executable
    bare, _ = median_seconds([python, "-c", "pass"])
    imported, _ = median_seconds([python, "-c", "import ponder"])
    helped, code = median_seconds([python, "-m", "ponder", "--help"])
    return {
        "python_bare_s": bare,
        "import_ponder_s": imported,
        "ponder_help_s": helped,
        "ponder_help_exit_code": code,
    }


# -- report -----------------------------------------------------------------------------------


def mark(ok: bool | None) -> str:
    return "" if ok is None else ("  ✓ target met" if ok else "  ✗ target MISSED")


def print_table(results: dict[str, Any]) -> None:
    rows: list[tuple[str, str]] = []
    growth = results.get("growth_scripted")
    if growth:
        rows.append(
            (
                "prompt tokens/round (scripted)",
                " ".join(map(str, growth["prompt_tokens_per_round"]))
                + f"  peak of r3-r8 vs r1-r2 {growth['peak_after_round2_vs_first_two_pct']:+}%"
                + mark(growth.get("target_met")),
            )
        )
    tiny = results.get("tiny") or {}
    if tiny.get("growth"):
        g = tiny["growth"]
        rows.append(
            (
                "prompt tokens/round (tiny)",
                " ".join(map(str, g["prompt_tokens_per_round"]))
                + (
                    f"  peak of r3-r8 vs r1-r2 {g['peak_after_round2_vs_first_two_pct']:+}%"
                    if "target_met" in g
                    else ""
                )
                + mark(g.get("target_met")),
            )
        )
    for name, c in (tiny.get("focused") or {}).items():
        rows.append(
            (
                f"cost focused {name.replace('_', ' ')}",
                f"{c['llm_calls']} calls, {c['total_tokens']} tokens "
                f"({c['prompt_tokens']} in / {c['completion_tokens']} out), {c['wall_seconds']} s",
            )
        )
    if tiny.get("deep_3_researchers"):
        c = tiny["deep_3_researchers"]
        rows.append(
            (
                "cost deep, 3 researchers (tiny)",
                f"{c['llm_calls']} calls, {c['total_tokens']} tokens "
                f"({c['prompt_tokens']} in / {c['completion_tokens']} out), {c['wall_seconds']} s",
            )
        )
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
    if results.get("paraphrase"):
        s = results["paraphrase"]
        rows.append(
            (
                f"paraphrased questions ({s['questions']}), answer page @1/@3",
                f"BM25 {s['bm25_at_1_pct']}/{s['bm25_at_3_pct']}%, hybrid e5-small "
                f"{s['hybrid_at_1_pct']}/{s['hybrid_at_3_pct']}%, lost "
                f"{len(s['lost_by_hybrid'])}; {s['passages_per_second']} passages/s, query "
                f"{s['hybrid_query_ms_p50']} ms" + mark(s["target_met"]),
            )
        )
    quality = results.get("quality") or {}
    for kind in ("scripted", "tiny", "smol"):
        if kind in quality:
            for when in ("before", "after"):
                if when not in quality[kind]:
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
    search = results.get("search") or {}
    for key in ("index_1000", "index_10000"):
        if key in search:
            s = search[key]
            rows.append(
                (
                    f"local search {s['docs']} docs",
                    f"{s['docs_per_second']} docs/s, p50 {s['query_p50_ms']} ms, "
                    f"p95 {s['query_p95_ms']} ms",
                )
            )
    if results.get("strong_prose"):
        from strong_prose import table_rows

        rows += table_rows(results["strong_prose"])
    rows += document_rows(results.get("documents") or {})
    rows += semantic_rows(results.get("semantic") or {})
    if "reader" in search:
        r = search["reader"]
        rows.append(("reader 10 pages vs 1", f"{r['ten_pages_s']} s vs {r['one_page_s']} s"))
    if results.get("startup"):
        s = results["startup"]
        rows.append(
            (
                "start-up (median of 5)",
                f"import ponder {s['import_ponder_s']} s, ponder --help {s['ponder_help_s']} s "
                f"(exit {s['ponder_help_exit_code']}), bare python {s['python_bare_s']} s",
            )
        )
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.py")
    parser.add_argument("--no-tiny", action="store_true", help="skip the real-model runs")
    parser.add_argument("--no-search", action="store_true", help="skip the local-search bench")
    parser.add_argument(
        "--no-quality", action="store_true", help="skip the research-quality bench (~30 min)"
    )
    parser.add_argument(
        "--no-prose", action="store_true", help="skip the strong-prose bench (~5 min)"
    )
    parser.add_argument(
        "--tiny-growth", action="store_true", help="also run 8 rounds with the tiny model (~4 min)"
    )
    parser.add_argument("--only", nargs="*", help="run only these parts (names as in the JSON)")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    corpus = make_corpus(WORK / "corpus")
    machine = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    results: dict[str, Any] = {"machine": machine}
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("growth_scripted", lambda: bench_growth_scripted(corpus)),
        ("parallel_queries", bench_queries),
        ("parallel_researchers", lambda: bench_researchers(corpus)),
        ("several_hosts", lambda: bench_hosts(corpus)),
        ("startup", bench_startup),
    ]
    if not args.no_tiny:
        steps.append(("tiny", lambda: bench_tiny(corpus, growth=args.tiny_growth)))
    if not args.no_quality:
        steps.append(("quality", lambda: bench_quality(tiny=not args.no_tiny)))
        from paraphrase import run_paraphrase_bench

        steps.append(("paraphrase", run_paraphrase_bench))
    if not args.no_prose:
        steps.append(("strong_prose", bench_strong_prose))
    if not args.no_search:
        from bench_search import run_search_bench
        from documents import run_documents_bench
        from vectors import run_vectors_bench

        steps.append(("search", run_search_bench))
        steps.append(("documents", run_documents_bench))
        steps.append(("semantic", lambda: run_vectors_bench(tiny=not args.no_tiny)))
    steps = [(name, step) for name, step in steps if not args.only or name in args.only]
    for name, step in steps:
        began = time.perf_counter()
        print(f"… {name}", file=sys.stderr, flush=True)
        results[name] = step()
        print(f"  {name}: {time.perf_counter() - began:.1f} s", file=sys.stderr, flush=True)
    took = round(time.perf_counter() - started, 1)
    results["bench_seconds"] = took
    target = BENCH / "results.json"
    if args.only and target.exists():  # a partial run updates the figures it measured…
        earlier = json.loads(target.read_text(encoding="utf-8"))
        # …but bench_seconds stays the whole bench's time.
        results = {**earlier, **results, "bench_seconds": earlier.get("bench_seconds", took)}
    target.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print_table(results)
    print(f"\nbench took {took} s; figures in bench/results.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
