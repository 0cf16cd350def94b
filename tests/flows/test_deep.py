"""The deep pipeline against the scripted rig: hand-off, clarification, parallelism, caps."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from support import long_summary, over_corpus

from ponder import ClarificationNeeded, aresearch, aresume, stream
from ponder.api import stream_resume
from ponder.core.events import ProgressEvent
from ponder.core.result import Report
from ponder.services.text.citations import cited_numbers
from ponder.testing import ChatRequest, Fault, Rig, ScriptedBackend, auto_reply


def settings(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    return over_corpus(rig, corpus, **{"max_loops": 1, "allow_clarification": False, **extra})


def topic_of(request: ChatRequest | Any) -> str:
    text = "\n".join(str(m.get("content")) for m in request.messages)
    match = re.search(r"(?m)^Topic: (.+)$", text)
    return match.group(1).strip() if match else ""


def decisions(*rounds: list[str], complete: bool = False) -> Any:
    """SupervisorDecision replies: the given sub-topic lists in order, then nothing new."""
    replies = iter(rounds)
    return lambda _r: {
        "reflection": "r",
        "subtopics": next(replies, []),
        "research_complete": complete,
    }


async def test_broad_topic_hands_off_keeping_sources_and_numbers(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = {
        "is_sufficient": False,
        "knowledge_gap": "g",
        "follow_up_queries": ["x"],
        "scope": "broad",
        "subtopics": ["moon orbit", "harbour pilots"],
    }
    scripted.overrides["SupervisorDecision"] = decisions([])
    carried: list[dict[str, Any]] = []
    report: Report | None = None
    async for item in stream("Tides, harbours and the Moon", **settings(rig, corpus, mode="auto")):
        if isinstance(item, Report):
            report = item
        elif item.kind == "handoff":
            carried = item.data["sources"]
    assert report is not None and carried, "the loop's sources were not carried into deep"
    by_url = {s.url: s.registry_number for s in report.sources}
    for source in carried:
        assert by_url[source["url"]] == source["number"]
    topics = {topic_of(e) for e in rig.chat_log() if e.schema == "QueryPlan"}
    assert {"moon orbit", "harbour pilots"} <= topics  # the loop's sub-topics were researched
    assert report.markdown.startswith("# ")


async def test_clarification_pauses_and_resume_continues(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    asked = itertools.count()
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": next(asked) == 0,
        "question": "Which coast do you mean?",
        "verification": "ok",
    }
    config = settings(rig, corpus, mode="deep", allow_clarification=True)
    with pytest.raises(ClarificationNeeded) as paused:
        await aresearch("Tides", **config)
    assert paused.value.question == "Which coast do you mean?"
    assert not any(e.schema == "ResearchBrief" for e in rig.chat_log())
    report = await aresume(paused.value.thread_id, "The Atlantic coast")
    assert report.markdown.startswith("# ")
    clarify_calls = [e for e in rig.chat_log() if e.schema == "Clarification"]
    assert len(clarify_calls) == 2  # asked once, re-checked once after the answer; no repeat
    [brief] = [e for e in rig.chat_log() if e.schema == "ResearchBrief"]
    assert "The Atlantic coast" in brief.messages[-1]["content"]


async def test_clarification_through_a_callback(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    asked = itertools.count()
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": True,
        "question": f"Which era, {next(asked)}?",
        "verification": "",
    }
    questions: list[str] = []
    config = settings(rig, corpus, mode="deep", allow_clarification=True)
    report = await aresearch("Tides", ask=lambda q: questions.append(q) or "vague", **config)
    assert questions == ["Which era, 0?", "Which era, 1?"]  # hard cap: two questions
    assert report.markdown


async def test_a_question_answered_already_is_not_asked_again(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    """A small model re-asks its question after the answer: the person is asked once, the
    answer reaches the brief, and the run says it received the answer (once)."""
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": True,
        "question": "Which era?",
        "verification": "",
    }
    config = settings(rig, corpus, mode="deep", allow_clarification=True)
    with pytest.raises(ClarificationNeeded) as paused:
        await aresearch("Tides", **config)
    *events, report = [item async for item in stream_resume(paused.value.thread_id, "Bronze")]
    assert isinstance(report, Report) and report.markdown.startswith("# ")
    assert [e.kind for e in events if e.kind in ("clarification", "answered")] == ["answered"]
    [answered] = [e for e in events if e.kind == "answered"]
    assert answered.data == {"question": "Which era?", "answer": "Bronze"}
    [brief] = [e for e in rig.chat_log() if e.schema == "ResearchBrief"]
    assert "Answer: Bronze" in brief.messages[-1]["content"]
    assert report.stats.texts_rejected >= 1


async def test_three_researchers_run_concurrently_and_a_fourth_waits(
    corpus: Path,
) -> None:
    backend = ScriptedBackend(delay=0.3)
    backend.overrides["SupervisorDecision"] = decisions(["tides", "moon", "harbours", "sea"])
    with Rig(backend) as rig:
        await aresearch("Oceans", **settings(rig, corpus, mode="deep"))
        plans = {topic_of(e): e for e in rig.chat_log() if e.schema == "QueryPlan"}
    first = [plans[t] for t in ("tides", "moon", "harbours")]
    assert max(e.start for e in first) < min(e.end for e in first), "no overlap: not parallel"
    assert plans["sea"].start > max(e.end for e in first)  # waited for the next round


async def test_caps_hold_when_the_model_never_says_complete(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    counter = itertools.count()
    scripted.overrides["SupervisorDecision"] = lambda _r: {
        "reflection": "more",
        "research_complete": False,
        "subtopics": [f"angle {next(counter)}", f"angle {next(counter)}"],
    }
    config = settings(
        rig, corpus, mode="deep", max_supervisor_rounds=2, max_concurrent_researchers=2
    )
    report = await aresearch("Tides", **config)
    researched = {topic_of(e) for e in rig.chat_log() if e.schema == "QueryPlan"}
    assert len(researched) == 4  # two rounds of two
    assert sum(1 for e in rig.chat_log() if e.schema == "SupervisorDecision") <= 2
    assert report.markdown


async def test_a_researcher_whose_model_fails_leaves_a_note_and_the_report_is_written(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SupervisorDecision"] = decisions(["doomed topic", "tides"])

    def fail_for_doomed(request: ChatRequest) -> Any:
        return Fault("http500") if topic_of(request) == "doomed topic" else auto_reply(request)

    for title in ("QueryPlan", "SummaryUpdate", "Reflection"):
        scripted.overrides[title] = fail_for_doomed
    report = await aresearch("Tides", **settings(rig, corpus, mode="deep", max_retries=0))
    assert any("doomed topic" in w and "failed" in w for w in report.stats.warnings)
    assert report.markdown.startswith("# ") and "## Sources" in report.markdown


async def test_final_report_citations_all_resolve(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SupervisorDecision"] = decisions(["tides", "moon"])
    scripted.overrides["text"] = "# Tides\n\n## Causes\nThe Moon [2]. Wrong [42]. Sun [1].\n"
    report = await aresearch("Tides", **settings(rig, corpus, mode="deep"))
    body, listed = report.markdown.split("## Sources")
    assert "[42]" not in body and report.stats.citations_removed >= 1
    numbers = cited_numbers(body)
    assert numbers == list(range(1, len(numbers) + 1))
    entries = [line for line in listed.splitlines() if line[:1].isdigit()]
    assert len(entries) == len(numbers)


async def test_report_is_written_section_by_section_when_notes_do_not_fit(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SupervisorDecision"] = decisions(["tides", "moon", "harbours", "sea level"])
    scripted.overrides["SummaryUpdate"] = long_summary
    config = settings(rig, corpus, mode="deep", num_ctx=2048, num_predict=512, summary_tokens=900)
    report = await aresearch("Tides", **config)
    texts = [e for e in rig.chat_log() if e.schema is None]
    assert len(texts) >= 3  # one call per section, not one truncated call
    assert report.markdown.startswith("# ")


async def test_a_bug_inside_a_researcher_raises_instead_of_becoming_a_failed_note(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only ponder's own errors (a model or search that kept failing) make a researcher's
    note say "failed"; a programming error stops the run where it happened."""
    scripted.overrides["SupervisorDecision"] = decisions(["tides"])

    def buggy_passages(*_args: Any, **_kwargs: Any) -> Any:
        raise KeyError("passages")

    monkeypatch.setattr("ponder.nodes.web_research.best_passages", buggy_passages)
    with pytest.raises(KeyError, match="passages"):
        await aresearch("Tides", **settings(rig, corpus, mode="deep"))


async def test_each_researchers_events_name_it_and_every_round_is_counted(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    """Parallel researchers are told apart live, and the rounds a live view counts are the
    report's: a deep run's stats said 0 rounds after its researchers' rounds."""
    scripted.overrides["SupervisorDecision"] = decisions(["moon orbit", "harbour pilots"])
    events = [e async for e in stream("Oceans", **settings(rig, corpus, mode="deep", max_loops=2))]
    report = events.pop()
    assert isinstance(report, Report)
    inside = [e for e in events if isinstance(e, ProgressEvent) and "researcher" in e.path]
    assert inside and {e.data.get("researcher") for e in inside} == {"moon orbit", "harbour pilots"}
    rounds = [e for e in inside if e.kind == "round_start"]
    assert report.stats.rounds == len(rounds) >= 2
