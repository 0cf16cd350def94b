"""Several Ollama hosts: calls go to the least busy, a failing host is skipped and rested,
a host killed mid-run costs a retry at most, and the stats say who served what."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from support import over_corpus

from ponder import aresearch
from ponder.core.errors import ConfigurationError, ExitCode, OllamaUnavailableError
from ponder.interfaces.cli import build_parser, run_options
from ponder.services.model.hosts import HostPool, NoHostLeft
from ponder.settings.configuration import Configuration
from ponder.settings.ollama_host import one_host_for_the_ollama_client
from ponder.testing import ChatRequest, Fault, LogEntry, Rig, ScriptedBackend

DELAY = 0.05


def researchers(count: int) -> ScriptedBackend:
    """A supervisor that hands out ``count`` sub-topics once, then ends."""
    topics = iter([[f"aspect {i} of tides" for i in range(count)]])
    backend = ScriptedBackend(delay=DELAY)
    backend.overrides["SupervisorDecision"] = lambda _r: {
        "reflection": "r",
        "subtopics": next(topics, []),
        "research_complete": False,
    }
    return backend


@pytest.fixture
def two_rigs() -> Iterator[tuple[Rig, Rig]]:
    backend = researchers(4)  # shared: the same decisions whichever rig is asked
    with ExitStack() as stack:
        first = stack.enter_context(Rig(backend, one_at_a_time=True))
        second = stack.enter_context(Rig(backend, one_at_a_time=True))
        yield first, second


def deep(rigs: tuple[Rig, ...], corpus: Path, **extra: Any) -> dict[str, Any]:
    config = over_corpus(rigs[0], corpus, mode="deep", max_loops=1, max_supervisor_rounds=2)
    config["ollama_base_url"] = ",".join(rig.url for rig in rigs)
    return {**config, "max_concurrent_researchers": 4, "allow_clarification": False, **extra}


def overlapping(log: list[LogEntry]) -> int:
    """The most calls one rig had in flight at once."""
    edges = sorted([(e.start, 1) for e in log] + [(e.end, -1) for e in log])
    peak = busy = 0
    for _, step in edges:
        busy += step
        peak = max(peak, busy)
    return peak


async def test_both_hosts_serve_one_call_at_a_time_each(
    two_rigs: tuple[Rig, Rig], corpus: Path
) -> None:
    report = await aresearch("How do tides work?", **deep(two_rigs, corpus))
    first, second = two_rigs
    assert report.markdown.startswith("# ")
    served = report.stats.host_calls
    assert served == {first.url: len(first.chat_log()), second.url: len(second.chat_log())}
    assert min(served.values()) >= 4  # the four researchers spread over both
    assert overlapping(first.chat_log()) == 1 and overlapping(second.chat_log()) == 1


async def test_a_host_killed_mid_run_costs_at_most_a_retry(
    two_rigs: tuple[Rig, Rig], corpus: Path
) -> None:
    first, second = two_rigs
    healthy = await aresearch("How do tides work?", **deep((first,), corpus, thread_id="one"))
    calls = 0
    inner = second.backend

    def dying(request: ChatRequest) -> Any:
        """The third call drops the connection mid-request, and the host goes away."""
        nonlocal calls
        calls += 1
        if calls == 3:
            threading.Thread(target=second.stop, daemon=True).start()
            return Fault("drop")
        return inner.answer(request)

    second.backend = type("Dying", (), {"answer": staticmethod(dying)})()
    report = await aresearch("How do tides work?", **deep(two_rigs, corpus, thread_id="two"))
    assert report.markdown.startswith("# ") and report.sources
    assert report.stats.fallbacks == healthy.stats.fallbacks
    assert report.stats.retries <= healthy.stats.retries + 1
    assert report.stats.host_calls[second.url] == 2  # the two it answered before dying
    assert report.stats.host_calls[first.url] > 0
    assert any(f"Ollama host {second.url} failed" in w for w in report.stats.warnings)


async def test_every_host_down_names_them_all(corpus: Path) -> None:
    config = {
        "model": "scripted", "search": "local", "docs": [str(corpus)], "mode": "loop",
        "max_loops": 1, "ollama_base_url": "http://127.0.0.1:9,http://127.0.0.1:10",
    }  # fmt: skip
    with pytest.raises(OllamaUnavailableError, match=r"any of http://127\.0\.0\.1:9, http"):
        await aresearch("How do tides work?", **config)


async def test_the_least_busy_host_gets_the_call_and_a_full_pool_waits() -> None:
    pool = HostPool(["a", "b"], limit=1)
    async with pool.lease(set()) as first, pool.lease(set()) as second:
        assert {first.url, second.url} == {"a", "b"}
        waiting = asyncio.ensure_future(pool.lease(set()).__aenter__())
        await asyncio.sleep(0.05)
        assert not waiting.done()  # both hosts busy: the third call waits its turn
    host = await asyncio.wait_for(waiting, 1)
    assert host.url in ("a", "b")


async def test_calls_spread_before_any_host_takes_a_second() -> None:
    pool = HostPool(["a", "b"], limit=2)
    async with pool.lease(set()) as first, pool.lease(set()) as second:
        assert (first.url, second.url) == ("a", "b")
        async with pool.lease(set()) as third:
            assert third.in_flight == 2


async def test_a_resting_host_is_used_only_when_no_other_is_up() -> None:
    pool = HostPool(["a", "b"], limit=2)
    pool.rest(pool.hosts[0])
    for _ in range(3):
        async with pool.lease(set()) as host:
            assert host.url == "b"
    async with pool.lease({"b"}) as host:
        assert host.url == "a"  # the only one left for this call: tried although resting
    with pytest.raises(NoHostLeft):
        async with pool.lease({"a", "b"}):
            pass


def test_hosts_come_as_a_list_or_comma_separated() -> None:
    from_python = Configuration.create(ollama_base_url=["gpu1", "http://gpu2:8080"])
    assert from_python.ollama_hosts == ["http://gpu1:11434", "http://gpu2:8080"]
    args = build_parser().parse_args(["research", "q", "--ollama-url", "gpu1, gpu2"])
    from_cli = Configuration.create(**run_options(args))
    assert from_cli.ollama_hosts == ["http://gpu1:11434", "http://gpu2:11434"]


def test_hosts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", "gpu1:11434,gpu2:11434")
    assert Configuration.create().ollama_hosts == ["http://gpu1:11434", "http://gpu2:11434"]


def test_a_list_in_ollama_host_is_refused_with_the_fix_and_left_as_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ollama package parses OLLAMA_HOST as it is imported and fails on a list;
    ponder does not rewrite another program's variable."""
    import os

    monkeypatch.setenv("OLLAMA_HOST", "gpu1:11434,gpu2:11434")
    with pytest.raises(ConfigurationError, match="PONDER_OLLAMA_BASE_URL"):
        Configuration.create(ollama_base_url="gpu1:11434")
    with pytest.raises(ConfigurationError, match="PONDER_OLLAMA_BASE_URL"):
        one_host_for_the_ollama_client()
    assert os.environ["OLLAMA_HOST"] == "gpu1:11434,gpu2:11434"


def test_doctor_counts_the_hosts_that_can_serve(rig: Rig) -> None:
    from ponder.interfaces.doctor import run_checks

    config = Configuration.create(
        model="scripted", search="local", docs=["."],
        ollama_base_url=f"{rig.url},http://127.0.0.1:9",
    )  # fmt: skip
    checks = run_checks(config)
    down = [c for c in checks if "127.0.0.1:9" in c.message]
    assert down and all(c.outcome == "warn" for c in down)
    assert any(c.outcome == "ok" and "1 of 2 Ollama hosts" in c.message for c in checks)
    alone = Configuration.create(model="scripted", ollama_base_url="http://127.0.0.1:9")
    assert run_checks(alone)[0].outcome == "fail"


async def test_a_cancelled_call_gives_its_slot_back() -> None:
    pool = HostPool(["a"], limit=1)

    async def hold() -> None:
        async with pool.lease(set()):
            await asyncio.sleep(10)

    task = asyncio.ensure_future(hold())
    await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    async with asyncio.timeout(1), pool.lease(set()) as host:
        assert host.in_flight == 1


async def test_a_waiting_call_takes_a_host_whose_rest_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ponder.services.model import hosts

    monkeypatch.setattr(hosts, "REST_SECONDS", 0.2)
    pool = HostPool(["a", "b"], limit=1)
    pool.rest(pool.hosts[1])  # b failed a moment ago
    async with pool.lease(set()) as busy:
        assert busy.url == "a"
        async with asyncio.timeout(2), pool.lease(set()) as host:
            assert host.url == "b"  # not left waiting for a, which never frees up here


def test_several_hosts_run_from_the_command_line(
    two_rigs: tuple[Rig, Rig], corpus: Path, workdir: Path
) -> None:
    """Several hosts in PONDER_OLLAMA_BASE_URL serve a run; a list in OLLAMA_HOST, which the
    ollama package reads itself, stops the command with the fix before anything starts."""
    import os
    import subprocess
    import sys

    first, second = two_rigs
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    hosts = f"{first.url},{second.url}"
    flags = ["--model", "scripted", "--search", "local", "--docs", str(corpus), "--mode", "loop"]
    command = [sys.executable, "-m", "ponder", "How do tides work?", *flags, "--loops", "1"]
    done = subprocess.run(
        command, cwd=workdir, env={**env, "PONDER_OLLAMA_BASE_URL": hosts},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert first.chat_log() and second.chat_log()
    calls = len(first.chat_log()) + len(second.chat_log())
    refused = subprocess.run(
        command, cwd=workdir, env={**env, "OLLAMA_HOST": hosts},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode == ExitCode.USAGE, refused.stderr
    assert "PONDER_OLLAMA_BASE_URL" in refused.stderr and "Traceback" not in refused.stderr
    assert len(first.chat_log()) + len(second.chat_log()) == calls
