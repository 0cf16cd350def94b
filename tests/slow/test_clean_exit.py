"""A process that serves a real model exits cleanly: the model is freed before the
interpreter exits, not torn down with it (where llama.cpp's thread segfaults)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.tiny

# Serve the model through the rig, hang up while it writes (the case that leaves a generation
# running), leave the block, and report the process's native threads on the way: after the
# block, once those told to end have gone: under load one was seen still listed just after
# the block and gone a moment later, while a thread never told to end stays for good.
RIG_USER = textwrap.dedent(
    """
    import os
    import time
    import httpx
    from ponder.testing import TINY_MODEL, Rig
    from ponder.testing.tiny import TinyModelBackend

    def threads():
        return len(os.listdir("/proc/self/task"))

    def settled(at_most, seconds=5.0):
        deadline = time.monotonic() + seconds
        while threads() > at_most and time.monotonic() < deadline:
            time.sleep(0.05)
        return threads()

    base = threads()
    with TinyModelBackend(max_predict=64) as backend, Rig(backend, models=(TINY_MODEL,)) as rig:
        serving = threads()
        body = {"model": TINY_MODEL, "messages": [{"role": "user", "content": "Tides?"}]}
        with httpx.stream("POST", f"{rig.url}/api/chat", json=body, timeout=60) as reply:
            assert reply.status_code == 200
            next(reply.iter_lines())
    print(base, serving, settled(base + 1))
    """
)

CRASH_SIGNS = ("Segmentation fault", "Fatal Python error", "Aborted", "core dumped")


def test_a_process_using_the_tiny_model_frees_it_and_exits_cleanly() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", RIG_USER],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert not [sign for sign in CRASH_SIGNS if sign in done.stderr], done.stderr[-2000:]
    base, serving, after = map(int, done.stdout.split()[-3:])
    # llama.cpp's loop and worker threads ran while serving and were joined on close; at
    # most one thread it starts once per process remains.
    assert serving > base + 1
    assert after <= base + 1
