"""Start-up: how long ``import ponder`` and ``ponder --help`` take, next to a bare Python
(the median of 5 runs each, in fresh processes)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from typing import Any

from workspace import BENCH, ROOT


def median_seconds(args: list[str], repeat: int = 5) -> tuple[float, int]:
    """The median wall time of ``args`` and its last exit code; ponder is found in this
    checkout, as the bench found it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(BENCH)])}
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
