"""Every node × every model fault the rig can inject, for the loop and the deep pipeline.

A fault is injected for every call of one schema (or of plain-text calls) for the whole run.
The run must end with a report, or with a clear PonderError and a checkpoint that ``aresume``
completes once the fault is gone — never an unhandled traceback, never an endless loop.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ponder import ModelNotFoundError, PonderError, aresearch, aresume
from ponder.nodes.clarify_with_user import MAX_QUESTIONS
from ponder.testing import FAULT_KINDS, Fault, Rig, ScriptedBackend

LOOP_TITLES = ("QueryPlan", "SummaryUpdate", "Reflection", "text")
DEEP_TITLES = ("Clarification", "ResearchBrief", "SupervisorDecision", *LOOP_TITLES)
STRUCTURED = set(DEEP_TITLES) - {"text"}

TIMEOUT = 0.4  # seconds before one model call is abandoned
SLOW = 1.2  # a "slow" reply arrives after this, i.e. always too late
RETRIES = 1
MAX_LOOPS = 2
SUPERVISOR_ROUNDS = 2
RESEARCHERS = 2


def settings(rig: Rig, corpus: Path, mode: str) -> dict[str, Any]:
    return {
        "model": "scripted",
        "ollama_base_url": rig.url,
        "search": "local",
        "docs": [str(corpus)],
        "mode": mode,
        "request_timeout": TIMEOUT,
        "max_retries": RETRIES,
        "max_loops": MAX_LOOPS,
        "max_supervisor_rounds": SUPERVISOR_ROUNDS,
        "max_concurrent_researchers": RESEARCHERS,
        "allow_clarification": True,
    }


def call_caps(mode: str) -> dict[str, int]:
    """The most calls each schema may get in one run, before retries.

    No run here can hand off, so the last round asks for no reflection.
    """
    if mode == "loop":
        return {"QueryPlan": 1, "SummaryUpdate": MAX_LOOPS, "Reflection": MAX_LOOPS - 1, "text": 1}
    researchers = SUPERVISOR_ROUNDS * RESEARCHERS
    return {
        "Clarification": MAX_QUESTIONS + 1,
        "ResearchBrief": 1,
        "SupervisorDecision": SUPERVISOR_ROUNDS,
        "QueryPlan": researchers,
        "SummaryUpdate": researchers * MAX_LOOPS,
        "Reflection": researchers * (MAX_LOOPS - 1),
        "text": researchers + 1,  # one call, or one per section
    }


def assert_bounded(rig: Rig, mode: str, runs: int = 1) -> Counter[str]:
    calls = Counter(e.schema or "text" for e in rig.chat_log())
    caps = call_caps(mode)
    assert set(calls) <= set(caps), f"unexpected calls: {calls}"
    for title, count in calls.items():
        assert count <= caps[title] * (RETRIES + 1) * runs, (title, count, calls)
    return calls


# A slow reply costs each call its whole time limit, retries included: seconds a case. Two
# stay in `make check` (a structured call and a streamed one); the rest run in `make test`.
QUICK_SLOW_CASES = {("loop", "QueryPlan"), ("loop", "text")}


def case(mode: str, title: str, kind: str) -> Any:
    slow = kind == "slow" and (mode, title) not in QUICK_SLOW_CASES
    return pytest.param(mode, title, kind, marks=[pytest.mark.slow] if slow else [])


CASES = [case("loop", t, k) for t in LOOP_TITLES for k in FAULT_KINDS] + [
    case("deep", t, k) for t in DEEP_TITLES for k in FAULT_KINDS
]


@pytest.mark.parametrize(("mode", "title", "kind"), CASES)
async def test_model_fault_ends_with_report_or_resumable_error(
    mode: str, title: str, kind: str, corpus: Path
) -> None:
    backend = ScriptedBackend(overrides={title: Fault(kind, delay=SLOW)})  # type: ignore[arg-type]
    thread = f"fault-{mode}-{title}-{kind}"
    with Rig(backend) as rig:
        config = settings(rig, corpus, mode)
        try:
            report = await aresearch("How do tides work?", thread_id=thread, **config)
        except PonderError as exc:
            # Only a missing model is fatal; every other fault has a retry and a fallback.
            assert kind == "not_found", f"{kind} at {title} raised {exc!r}"
            assert isinstance(exc, ModelNotFoundError)
            assert "ollama pull scripted" in str(exc)
            faulted = [e for e in rig.chat_log() if e.fault]
            assert len(faulted) == 1, "a missing model is not retried"
            before = assert_bounded(rig, mode)
            backend.overrides.clear()
            report = await aresume(thread)
            after = assert_bounded(rig, mode, runs=2)
            # The checkpoint kept the finished steps: none before the failing node is redone.
            for done in DEEP_TITLES[: DEEP_TITLES.index(title)] if mode == "deep" else ():
                if done in ("Clarification", "ResearchBrief"):
                    assert after[done] == before[done], (done, before, after)
            if mode == "loop" and title != "QueryPlan":
                assert after["QueryPlan"] == 1
        else:
            assert kind != "not_found", "a missing model must stop the run with a clear error"
            faulted = [e for e in rig.chat_log() if e.fault]
            assert faulted, f"the {title} fault was never injected"
            assert_bounded(rig, mode)
            if title in STRUCTURED:
                # Constrained output that never arrived: a fallback, recorded as a warning.
                assert any(f"{title}: model output unusable" in w for w in report.stats.warnings)
                assert report.stats.fallbacks >= 1
            elif kind not in ("invalid_json", "garbage"):
                assert any("Model text unusable" in w for w in report.stats.warnings)
        assert report.markdown.startswith("# ")
        assert report.thread_id == thread
        assert "## Sources" in report.markdown or "No sources were found" in report.markdown


async def test_fault_on_every_call_still_ends(corpus: Path) -> None:
    """The worst case: every call of every kind fails; the run still ends, with a report."""
    backend = ScriptedBackend(overrides={t: Fault("http500") for t in DEEP_TITLES})
    with Rig(backend) as rig:
        report = await aresearch("How do tides work?", **settings(rig, corpus, "deep"))
        assert_bounded(rig, "deep")
        assert all(e.status == 500 for e in rig.chat_log())
    assert report.markdown.startswith("# ")
    assert report.stats.llm_calls == 0 and report.stats.fallbacks >= 5
    # Extracted passages still make a cited report: nothing the searches read is lost.
    assert report.sources and "## Sources" in report.markdown


async def test_transient_fault_is_retried_not_fallen_back(corpus: Path) -> None:
    """One failure, then a good answer: the retry wins and no fallback is recorded."""
    backend = ScriptedBackend()
    with Rig(backend) as rig:
        for kind in ("http500", "drop", "stream_error", "invalid_json"):
            backend.push(Fault(kind))  # type: ignore[arg-type]
            config = {**settings(rig, corpus, "loop"), "request_timeout": 30}
            report = await aresearch("How do tides work?", **config)
            assert report.stats.retries == 1, kind
            assert report.stats.fallbacks == 0, (kind, report.stats.warnings)


async def test_a_model_server_that_trickles_and_never_finishes_costs_each_call_its_deadline(
    corpus: Path,
) -> None:
    """One piece every 0.3 s, for ever: each read's own time limit (1 s) is never reached.
    Every call still ends at its deadline, is retried and replaced like a timeout, and the
    run ends with a report."""
    import inspect
    import itertools
    import json as prose  # a long text people wrote, no sentence of it twice
    import time

    from ponder.testing import Reply

    words = (inspect.getdoc(prose) or "").split()

    def trickle(_request: Any) -> Reply:
        # Prose that does not repeat itself, so no guard stops it: only the deadline can.
        pieces = (f"{words[n % len(words)]} " for n in itertools.count())
        return Reply(pieces=pieces, piece_delay=0.3)

    scripted = ScriptedBackend()
    scripted.overrides["text"] = trickle
    started = time.monotonic()
    with Rig(scripted) as rig:
        report = await aresearch(
            "How do tides work?",
            **{**settings(rig, corpus, "loop"), "request_timeout": 1.0, "max_loops": 1},
        )
    assert time.monotonic() - started < 30
    assert report.stats.extractive_report and report.cited_sources()
    assert any("did not finish within 1s" in w for w in report.stats.warnings), report.stats
