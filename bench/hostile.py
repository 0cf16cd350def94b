"""Hostile pages: what a run costs when its search results lead to pages built to hurt.

One focused run of the scripted model reads every result in full (``fetch_full_page``)
from a local server: an honest page beside a 2.8 MB title flood and script flood (each a
quadratic regex before issue 31), 100,000 nested elements, a 2.9 MB page on one line,
gzip-in-gzip inflating to 4 GB, a page trickling a byte every 2 s, an endless chunked
stream, headers and then silence, a redirect loop, a PDF of 200,000 pages and a PDF whose
content inflates to 2 GB (``tests/support/hostile_site.py``). Beside it, the same run when the
search finds only the honest page.

Figures: each run's wall time and the peak memory (RSS) of the run's process tree —
ponder and any worker process it starts — sampled every 50 ms (targets: the hostile run
under 30 s, its peak under 1 GB). The run is stopped after LIMIT seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from workspace import ROOT

from ponder.testing import Rig, ScriptedBackend

sys.path.insert(0, str(ROOT / "tests"))
from support import Site, respond
from support.hostile_site import HONEST, hostile_settings, hostile_site

LIMIT = 300.0
# Measured at 87e635a, before issue 31's limits: the run was stopped at the limit (the
# title-flood regex held the GIL; the gzip bomb was never reached), at 201 MB then.
BEFORE = {"finished": False, "wall_s": 300.1, "peak_rss_mb": 201}
TOPIC = "How do harbour tides work?"
RUN = """import json, sys, time
from ponder import research
settings = json.loads(sys.argv[1])
started = time.perf_counter()
report = research(sys.argv[2], **settings)
print(json.dumps({"wall_s": time.perf_counter() - started, "sources": len(report.sources),
                  "warnings": report.stats.warnings}))
"""


def bench_hostile() -> dict[str, Any]:
    with Rig(ScriptedBackend(), models=("scripted",)) as rig:
        honest = Site()
        honest.routes["/page/honest"] = respond(HONEST)
        results = [{"url": honest.url + "/page/honest", "title": "honest", "content": "Tides."}]
        honest.routes["/search"] = respond(json.dumps({"results": results}), "application/json")
        site, _ = hostile_site("bench")
        try:
            alone = _run(hostile_settings(rig, honest))
            hostile = _run(hostile_settings(rig, site))
        finally:
            honest.close()
            site.close()
    return {"honest_only": alone, "with_hostile_pages": hostile, "limit_s": LIMIT}


def _run(settings: dict[str, Any]) -> dict[str, Any]:
    """One run in a process of its own, its tree's memory sampled while it runs."""
    command = [sys.executable, "-c", RUN, json.dumps(settings), TOPIC]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = _PeakMemory(proc.pid)
    try:
        out, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        _kill_tree(proc.pid)
        proc.communicate()
        return {
            "finished": False,
            "wall_s": round(time.perf_counter() - started, 1),
            "peak_rss_mb": peak.stop(),
        }
    figures = json.loads(out.strip().splitlines()[-1]) if proc.returncode == 0 else {}
    return {
        "finished": proc.returncode == 0,
        "wall_s": round(figures.get("wall_s", time.perf_counter() - started), 2),
        "peak_rss_mb": peak.stop(),
        "sources": figures.get("sources"),
        "pages_refused": sorted({w for w in figures.get("warnings", []) if "Could not read" in w}),
        **({"error": err.strip().splitlines()[-1]} if proc.returncode else {}),
    }


def _tree(root: int) -> list[int]:
    """The process and its descendants (a forkserver's workers among them)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _rss_mb(pid: int) -> float:
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class _PeakMemory:
    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._done = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.05):
            self.peak = max(self.peak, sum(_rss_mb(p) for p in _tree(self.pid)))

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return round(self.peak)


def _kill_tree(pid: int) -> None:
    for member in reversed(_tree(pid)):
        with contextlib.suppress(OSError):
            os.kill(member, 9)


def table_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    if not figures:
        return []
    alone, hostile = figures["honest_only"], figures["with_hostile_pages"]
    done = "" if hostile["finished"] else f" (stopped at {figures['limit_s']:g} s)"
    met = hostile["finished"] and hostile["wall_s"] < 30 and hostile["peak_rss_mb"] < 1024
    return [
        (
            "hostile pages: before issue 31's limits",
            f"stopped at {BEFORE['wall_s']} s, peak {BEFORE['peak_rss_mb']} MB by then",
        ),
        (
            "hostile pages: the honest page alone",
            f"{alone['wall_s']} s, peak {alone['peak_rss_mb']} MB",
        ),
        (
            "hostile pages: beside 12 hostile ones",
            f"{hostile['wall_s']} s{done}, peak {hostile['peak_rss_mb']} MB"
            + ("  ✓ target met" if met else "  ✗ target MISSED"),
        ),
    ]
