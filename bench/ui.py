"""`ponder ui`: what the page costs a run, how fast a token reaches it, how fast it renders.

- overhead: the same focused runs of the scripted model, each through the Python API in a
  process of its own and through `ponder ui` (its own process) with a browser tab
  following the run, taken in turns so both see the same machine; the median of each
  run's own wall time. The page's cost is fixed per run, not proportional to it: the tab
  loads the run's page while the run starts (chromium spends 50-150 ms of CPU on a
  navigation here) and follows its events, and on two cores that delays the run by about
  0.1 s (measured without a browser, following the run over HTTP, the server adds
  nothing measurable). So it is measured at two paces: model answers of 0.2 s (a run of
  ~2.5 s, far faster than any real model: the fixed cost shows whole) and of 3 s (a run of
  ~11 s; a 4B model on a laptop GPU takes about that for a structured answer and longer
  for a report), where the target applies (the UI adds < 1 %).
  Beside it the time from the click to the report on the page, whose fixed part (the
  form's checks, the redirect, fetching and drawing the report) does not grow with the run
- token latency: the report streamed piece by piece by the rig, each piece's send time at
  the rig against the moment the tab's draft first holds it, rendered (a MutationObserver
  in the page reads how many characters of the model's text the drawn draft holds, its
  ``data-chars``; the same clock), median and 95th percentile (target: median < 100 ms)
- first render: first contentful paint of the ask page and of a finished report's page in
  a fresh tab, median of 10 (target < 300 ms)

Chromium is Debian's, driven by Playwright, as in the tests; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from tides import TOPIC
from workspace import ROOT

from ponder.testing import ChatRequest, Reply, Rig, ScriptedBackend, auto_reply

sys.path.insert(0, str(ROOT / "tests"))
from support import UiServer  # (the tests' way of starting `ponder ui`)

RUNS = 5
PACES = (0.2, 3.0)  # seconds per model answer; the target holds at the slower, truer one
PIECE_SECONDS = 0.03
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
OBSERVER = """
window.__seen = [];
new MutationObserver(() => {
  const draft = document.getElementById('draft-text');
  if (draft) window.__seen.push([Date.now() / 1000, Number(draft.dataset.chars || 0)]);
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""
# Runs through the Python API, one per line read, in a process that stays (warm, as the UI
# server is), with the operator's environment the UI server has too.
API_RUNS = """import sys
from ponder import research
for topic in sys.stdin:
    print(research(topic.strip(), mode='loop').stats.wall_seconds, flush=True)
"""


# First contentful paint, in ms after the navigation began (buffered: it may come first).
FIRST_PAINT = """new Promise((resolve) => {
  new PerformanceObserver((list) => {
    const paint = list.getEntries().find((e) => e.name === 'first-contentful-paint');
    if (paint) resolve(paint.startTime);
  }).observe({type: 'paint', buffered: true});
})"""


class StreamedReport:
    """The scripted model, whose report comes piece by piece with each piece's send time."""

    def __init__(self) -> None:
        self.scripted = ScriptedBackend(delay=PACES[0])
        self.sent: list[tuple[float, int]] = []  # (time the rig sent it, text length so far)

    def answer(self, request: ChatRequest) -> Any:
        if request.schema_title is not None or request.format is not None:
            return self.scripted.answer(request)
        text = auto_reply(request).content
        words = [w + " " for w in text.split(" ")]
        return Reply(pieces=self._timed(words), piece_delay=PIECE_SECONDS)

    def _timed(self, words: list[str]) -> Any:
        total = 0
        for word in words:
            total += len(word)
            self.sent.append((time.time(), total))
            yield word


def bench_ui(corpus: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    backend = StreamedReport()
    with Rig(backend, models=("scripted",)) as rig, sync_playwright() as playwright:
        env = operator_env(rig, corpus)
        server = UiServer(env).start()
        api = ApiRuns(env)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            paces = {str(pace): _overhead(browser, server, backend, api, pace) for pace in PACES}
            fast = paces[str(PACES[0])]
            latencies = sorted(fast.pop("latencies"))
            report_path = fast.pop("report_path")
            for figures in paces.values():
                figures.pop("latencies", None)
                figures.pop("report_path", None)
            paints = {
                "ask_page": _first_paint(browser, server.url + "/"),
                "report_page": _first_paint(browser, server.url + report_path),
            }
        finally:
            browser.close()
            server.stop()
            api.close()
    return {
        "runs": RUNS,
        "paces": paces,
        "ui_overhead_pct": paces[str(PACES[-1])]["ui_overhead_pct"],
        "tokens_measured": len(latencies),
        "token_latency_median_ms": round(1000 * statistics.median(latencies), 1),
        "token_latency_p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1),
        "first_paint_median_ms": paints,
    }


def _overhead(
    browser: Any, server: UiServer, backend: StreamedReport, api: ApiRuns, pace: float
) -> dict[str, Any]:
    """RUNS runs each way, in turns, with model answers of ``pace`` seconds."""
    backend.scripted.delay = pace
    api.run()  # a first run each way warms what later runs find ready (imports, the index)
    _ui_run(browser, server)
    direct: list[float] = []
    through_ui: list[tuple[float, float]] = []
    latencies: list[float] = []
    report_path = ""
    for _ in range(RUNS):
        direct.append(api.run())
        backend.sent.clear()
        wall, seconds, report_path, seen = _ui_run(browser, server)
        through_ui.append((wall, seconds))
        latencies += _latencies(backend.sent, seen)
    direct_s = statistics.median(direct)
    ui_s = statistics.median(wall for wall, _ in through_ui)
    page_s = statistics.median(seen for _, seen in through_ui)
    return {
        "direct_median_s": round(direct_s, 3),
        "ui_median_s": round(ui_s, 3),
        "ui_overhead_ms": round(1000 * (ui_s - direct_s)),
        "ui_overhead_pct": round(100 * (ui_s - direct_s) / direct_s, 2),
        # From the click on Research to the checked report on the page: the run, plus the
        # form's checks (the model server asked for the model), the redirect and the render.
        "click_to_report_median_s": round(page_s, 3),
        "page_fixed_cost_s": round(page_s - ui_s, 3),
        "latencies": latencies,
        "report_path": report_path,
    }


class ApiRuns:
    """The Python API in a process of its own that stays, as the UI server does."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", API_RUNS],
            env={**os.environ, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(TOPIC + "\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def operator_env(rig: Rig, corpus: Path) -> dict[str, str]:
    return {
        "PONDER_MODEL": "scripted",
        "PONDER_OLLAMA_BASE_URL": rig.url,
        "PONDER_SEARCH": "local",
        "PONDER_DOCS": str(corpus),
        "PONDER_MAX_LOOPS": "2",
        "PONDER_ALLOW_CLARIFICATION": "false",
        **{k: v for k, v in os.environ.items() if k in ("PONDER_DATA_DIR", "PONDER_CACHE_DIR")},
    }


def _ui_run(browser: Any, server: UiServer) -> tuple[float, float, str, list[tuple[float, int]]]:
    """One run asked from the page, followed there until its report shows: the run's own
    wall time, the time from the click to the report, the run's page, the draft's growth."""
    context = browser.new_context()
    context.add_init_script(OBSERVER)
    page = context.new_page()
    page.goto(server.url + "/")
    page.fill("#topic", TOPIC)
    page.check("input[name=mode][value=loop]")
    started = time.perf_counter()
    page.click("form.ask button[type=submit]")
    page.wait_for_selector("#report a.cite", timeout=120_000)
    seconds = time.perf_counter() - started
    path = page.url.removeprefix(server.url)
    seen = [tuple(s) for s in page.evaluate("window.__seen")]
    log = httpx.get(f"{server.url}{path}/log", timeout=10).json()
    assert log[-1]["status"] == "done", json.dumps(log[-1])
    context.close()
    return log[-1]["stats"]["wall_seconds"], seconds, path, seen  # type: ignore[return-value]


def _latencies(sent: list[tuple[float, int]], seen: list[tuple[float, int]]) -> list[float]:
    """For each piece the rig sent, how long until the page's draft was that long."""
    out = []
    for at, length in sent:
        shown = next((when for when, size in seen if size >= length), None)
        if shown is not None:
            out.append(max(shown - at, 0.0))
    return out


def _first_paint(browser: Any, url: str, repeat: int = 10) -> float:
    times = []
    for _ in range(repeat):
        context = browser.new_context()
        page = context.new_page()
        page.goto(url, wait_until="load")
        times.append(float(page.evaluate(FIRST_PAINT)))
        context.close()
    return round(statistics.median(times), 1)


def table_rows(ui: dict[str, Any]) -> list[tuple[str, str]]:
    if not ui or "paces" not in ui:
        return []
    slowest = max(ui["paces"], key=float)
    rows = [
        (
            f"ui: run wall time, answers of {pace} s (median of {ui['runs']})",
            f"{f['ui_median_s']} s in the page vs {f['direct_median_s']} s by the API: "
            f"{f['ui_overhead_ms']:+} ms, {f['ui_overhead_pct']:+} %"
            + (_mark(f["ui_overhead_pct"] < 1) if pace == slowest else ""),
        )
        for pace, f in ui["paces"].items()
    ]
    fast = ui["paces"][min(ui["paces"], key=float)]
    paint = ui["first_paint_median_ms"]
    return [
        *rows,
        (
            "ui: click → checked report on the page",
            f"{fast['click_to_report_median_s']} s ({fast['page_fixed_cost_s']} s besides the "
            "run: the form's checks, the redirect, the render)",
        ),
        (
            "ui: token → page",
            f"median {ui['token_latency_median_ms']} ms, p95 {ui['token_latency_p95_ms']} ms "
            f"({ui['tokens_measured']} tokens)" + _mark(ui["token_latency_median_ms"] < 100),
        ),
        (
            "ui: first contentful paint (median of 10)",
            f"ask page {paint['ask_page']} ms, report page {paint['report_page']} ms"
            + _mark(max(paint.values()) < 300),
        ),
    ]


def _mark(ok: bool) -> str:
    return "  ✓ target met" if ok else "  ✗ target MISSED"
