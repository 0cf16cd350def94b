"""A weak model cannot spoil the research: each guard, through the real client and the rig.

The rig plays the weak model (prompt echoes, loops that never end, junk queries, empty
claims, premature "sufficient") and the sensible one; ponder must stop the first early,
route around it and still deliver a cited report, and leave the second untouched.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import findings_by_source, over_corpus, sensible_summary, tiny_settings

from ponder import Report, aresearch, stream
from ponder.prompts import REPORT_SYSTEM, templates
from ponder.services.text.citations import cited_numbers
from ponder.testing import Reply, Rig, ScriptedBackend

TOPIC = "How do tides work?"
GOOD_REPORT = (
    "# Tides\n\nTides are the rise and fall of the sea [1]. The Moon's gravity raises a bulge "
    "on the near and the far side of the Earth [2].\n"
)


def settings(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    return over_corpus(rig, corpus, **{"mode": "loop", "max_loops": 1, **extra})


def looping(line: str, delay: float = 0.005) -> Reply:
    """A model stuck in a loop: the same line for ever, one token-sized piece at a time."""
    pieces = itertools.cycle([*(w + " " for w in line.split()), "\n"])
    return Reply(pieces=pieces, piece_delay=delay)


def uncited_prose() -> Iterator[str]:
    """Endless, varied, readable-looking text that never cites anything."""
    rng = random.Random(7)
    vocabulary = [f"{a}{b}" for a in ("sea", "tide", "wave", "moon", "sand") for b in "abcdefgh"]
    for count in itertools.count(1):
        yield rng.choice(vocabulary) + ("." if count % 12 == 0 else "") + " "


async def text_calls(rig: Rig) -> list[Any]:
    """Plain-text calls, once the rig has finished with them (a hang-up takes a moment; the
    event loop keeps running meanwhile, since it is what closes the connection)."""
    assert await asyncio.to_thread(rig.wait_idle)
    calls = [e for e in rig.chat_log() if e.schema is None]
    assert calls
    return calls


def assert_clean(markdown: str) -> None:
    """No sentence of any prompt, no repeated line, and cited."""
    body = markdown.split("## Sources")[0]
    for template in templates():
        for sentence in template.split(". "):
            if len(sentence.split()) >= 6 and "{" not in sentence:
                assert sentence not in body, sentence
    lines = [" ".join(line.split()) for line in body.splitlines() if len(line.split()) >= 3]
    assert len(lines) == len(set(lines)), "a line is repeated"
    assert cited_numbers(body)


async def test_a_looping_report_is_stopped_mid_stream_and_replaced_by_an_extractive_one(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["text"] = lambda _r: looping("The Moon pulls the sea up and down [1].")
    report = await aresearch(TOPIC, **settings(rig, corpus))
    calls = await text_calls(rig)
    assert len(calls) == 2  # one retry with livelier sampling, then the fallback
    for call in calls:
        assert call.client_stopped, "the client kept reading a looping answer"
        assert call.pieces_sent < 60  # a few lines, not num_predict (1024) tokens
    assert calls[1].options.get("temperature", 0) > calls[0].options.get("temperature", 0)
    assert report.stats.generations_stopped == 2 and report.stats.extractive_report
    assert "Extractive report" in report.markdown
    assert any("extractive report" in w for w in report.stats.warnings)
    assert_clean(report.markdown)


async def test_an_echoed_prompt_is_rejected_and_the_retry_is_used(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    echo = Reply(pieces=itertools.cycle(w + " " for w in REPORT_SYSTEM.split()), piece_delay=0.005)
    replies = iter([echo])
    scripted.overrides["text"] = lambda _r: next(replies, GOOD_REPORT)
    report = await aresearch(TOPIC, **settings(rig, corpus))
    first, second = await text_calls(rig)
    assert first.client_stopped and first.pieces_sent < 30
    assert not second.client_stopped
    assert not report.stats.extractive_report
    assert "The Moon's gravity raises a bulge" in report.markdown
    assert_clean(report.markdown)


async def test_a_report_that_says_nothing_the_sources_say_is_stopped_and_becomes_extractive(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["text"] = lambda _r: Reply(pieces=uncited_prose(), piece_delay=0.002)
    report = await aresearch(TOPIC, **settings(rig, corpus))
    calls = await text_calls(rig)
    assert all(c.client_stopped and c.pieces_sent < 300 for c in calls)
    assert any("says nothing a retrieved source supports" in w for w in report.stats.warnings)
    assert report.stats.extractive_report and "## Sources" in report.markdown
    assert_clean(report.markdown)


def grounded_then_looping(request: Any, written: tuple[int, ...]) -> Reply:
    """A model that writes a sound, cited beginning from the notes — the findings of the
    sources ``written`` — and then falls into a loop for ever."""
    said = findings_by_source(request)
    start = "# Tides\n\n" + "".join(f"{said[n]} [{n}]\n\n" for n in written)
    loop = itertools.cycle(["The tide comes and the tide goes [1].", "\n"])
    pieces = itertools.chain([w + " " for w in start.split(" ")], loop)
    return Reply(pieces=pieces, piece_delay=0.002)


async def test_a_report_that_loops_after_a_sound_beginning_keeps_it_and_is_completed(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SummaryUpdate"] = sensible_summary
    scripted.overrides["text"] = lambda request: grounded_then_looping(request, (1, 3))
    report = await aresearch(TOPIC, **settings(rig, corpus))
    (call,) = await text_calls(rig)  # kept at once: no retry
    assert call.client_stopped and call.pieces_sent < 150
    stats = report.stats
    assert stats.texts_cut == 1 and stats.chars_cut > 0 and not stats.extractive_report
    body = report.markdown.split("## Sources")[0]
    assert body.count("The tide comes and the tide goes") <= 1
    assert "cut here, where it began to repeat itself" in body
    # The finding the model never wrote comes from the notes, cited.
    missing = next(line for line in report.summary.splitlines() if "[2]" in line)
    assert re.sub(r"\s*\[\d+\]", "", missing).strip("- ") in body
    assert_clean(report.markdown)


async def test_a_report_that_loops_before_saying_anything_is_retried_not_kept(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SummaryUpdate"] = sensible_summary
    scripted.overrides["text"] = lambda request: grounded_then_looping(request, ())
    report = await aresearch(TOPIC, **settings(rig, corpus))
    assert len(await text_calls(rig)) == 2
    assert report.stats.texts_cut == 0 and report.stats.extractive_report


async def test_junk_queries_are_replaced_and_the_question_is_searched(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": ["rationale", "querie"]}
    scripted.overrides["Reflection"] = {
        "is_sufficient": False,
        "knowledge_gap": "how the Moon causes the bulges",
        "follow_up_queries": ["is_sufficient", "ratiolne"],
        "scope": "focused",
        "subtopics": [],
    }
    searched: list[list[str]] = []
    report: Report | None = None
    async for item in stream(TOPIC, **settings(rig, corpus, max_loops=2, queries_per_round=3)):
        if isinstance(item, Report):
            report = item
        elif item.kind == "round_start":
            searched.append(item.data["queries"])
    assert report is not None
    everything = [q for round_queries in searched for q in round_queries]
    assert searched[0][0] == TOPIC
    assert not {"rationale", "querie", "is_sufficient", "ratiolne"} & set(everything)
    assert all("tides" in q.lower() for q in everything)
    assert any("moon" in q.lower() for q in searched[1]), "the gap shapes the replacement"
    assert report.stats.queries_replaced == 4


async def test_empty_and_duplicate_claims_never_reach_the_summary(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    def junk_then_sense(request: Any) -> dict[str, Any]:
        good = sensible_summary(request)["findings"]
        junk = [
            {"statement": "None", "sources": [good[0]["sources"][0]]},
            {"statement": "How do tides work?", "sources": [good[0]["sources"][0]]},
            {"statement": "I am a student and I want to know", "sources": [1]},
        ]
        return {"findings": [*junk, good[0], good[0], *good[1:]]}

    scripted.overrides["SummaryUpdate"] = junk_then_sense
    report = await aresearch(TOPIC, **settings(rig, corpus))
    assert "None" not in report.summary and "student" not in report.summary
    assert report.stats.claims_dropped == 4
    lines = report.summary.splitlines()
    assert len(lines) == len(set(lines)) >= 2


async def test_a_sensible_model_is_not_second_guessed(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": ["tides moon gravity"]}
    scripted.overrides["SummaryUpdate"] = sensible_summary
    scripted.overrides["Reflection"] = {
        "is_sufficient": True,
        "knowledge_gap": "none",
        "follow_up_queries": ["tide tables for harbours"],
        "scope": "focused",
        "subtopics": [],
    }
    scripted.overrides["text"] = GOOD_REPORT
    searched: list[list[str]] = []
    report: Report | None = None
    async for item in stream(TOPIC, **settings(rig, corpus, max_loops=3)):
        if isinstance(item, Report):
            report = item
        elif item.kind == "round_start":
            searched.append(item.data["queries"])
    assert report is not None
    assert searched == [[TOPIC, "tides moon gravity"]]  # its query kept verbatim; one round
    stats = report.stats
    assert (stats.queries_replaced, stats.sufficient_overruled, stats.claims_dropped) == (0, 0, 0)
    assert stats.generations_stopped == 0 and not stats.extractive_report
    assert len(await text_calls(rig)) == 1 and report.markdown.startswith("# Tides")
    assert "Tides are the rise and fall of the sea [1]" in report.markdown


async def test_report_tokens_stream_as_events_and_a_discarded_draft_is_announced(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    replies = iter([looping("Round and round the same words go [1].")])
    scripted.overrides["text"] = lambda _r: next(replies, GOOD_REPORT)
    kinds: list[str] = []
    streamed = ""
    async for item in stream(TOPIC, **settings(rig, corpus)):
        if isinstance(item, Report):
            break
        kinds.append(item.kind)
        if item.kind == "token":
            streamed += item.data["text"]
    assert "discarded" in kinds and kinds.index("discarded") < len(kinds) - 1
    assert streamed.endswith(GOOD_REPORT.strip()) or GOOD_REPORT.strip() in streamed


async def test_langgraph_clients_get_the_report_on_the_messages_stream_and_no_json(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    from ponder.graphs.main import graph_builder

    graph = graph_builder().compile()  # the operator's graph: every setting per run
    scripted.overrides["text"] = GOOD_REPORT
    config = {"configurable": settings(rig, corpus)}
    nodes: set[str] = set()
    text = ""
    async for chunk, metadata in graph.astream({"topic": TOPIC}, config, stream_mode="messages"):
        nodes.add(metadata["langgraph_node"])
        text += str(chunk.content)
    assert nodes == {"finalize_summary"}  # the JSON decisions stay off the chat stream
    assert text == GOOD_REPORT  # streamed as written, and nothing more


async def test_after_a_discarded_draft_chat_clients_get_the_checked_report_last(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    from ponder.graphs.main import graph_builder

    graph = graph_builder().compile()  # the operator's graph: every setting per run
    replies = iter([looping("Round and round the same words go [1].")])
    scripted.overrides["text"] = lambda _r: next(replies, GOOD_REPORT)
    config = {"configurable": settings(rig, corpus)}
    messages: dict[str, str] = {}
    async for chunk, _meta in graph.astream({"topic": TOPIC}, config, stream_mode="messages"):
        messages[str(chunk.id)] = messages.get(str(chunk.id), "") + str(chunk.content)
    final = await graph.ainvoke({"topic": TOPIC}, config)
    *drafts, last = messages.values()
    assert any("Round and round" in d for d in drafts)
    assert last == final["report"] and "## Sources" in last


async def test_a_stopped_stream_is_closed_at_once(rig: Rig, scripted: ScriptedBackend) -> None:
    """Even when the caller blocks right after, the model stops within a few tokens."""
    from ponder.services.model.llm import LLM
    from ponder.services.model.prompt import Prompt
    from ponder.settings.configuration import Configuration

    scripted.overrides["text"] = lambda _r: looping("The same line again and again [1].", 0.002)
    llm = LLM(Configuration.create(model="scripted", ollama_base_url=rig.url, max_retries=0))
    assert await llm.text(Prompt.simple("x", "y"), fallback="none") == "none"
    time.sleep(0.5)  # the event loop is blocked: nothing more can close the connection now
    (call,) = await text_calls(rig)
    assert call.client_stopped and call.pieces_sent < 40


@pytest.mark.tiny
@pytest.mark.timeout(600)
async def test_the_tiny_model_yields_a_clean_cited_report_on_real_documentation(
    tiny_rig: Rig, tmp_path: Path
) -> None:
    """The 270M model echoes and loops; what the user gets is still clean, cites json, and
    numbers its citations 1..k with exactly those sources listed, all of them read.
    (The one real-model run of the loop in the suite; more are measured in `make bench`.)"""
    from ponder.testing.corpus import pydoc_corpus

    modules = ["json", "csv", "sqlite3", "pathlib", "itertools", "functools", "heapq", "bisect"]
    pydoc_corpus(tmp_path / "pydoc", modules)
    report = await aresearch(
        "How do I read and write JSON files in Python?",
        **tiny_settings(
            tiny_rig,
            tmp_path / "pydoc",
            mode="loop",
            max_loops=2,
            queries_per_round=2,
            num_ctx=4096,
            num_predict=256,
            evidence_tokens=800,
        ),
    )
    assert_clean(report.markdown)
    assert "json" in {Path(s.url).stem for s in report.cited_sources()}
    assert 1 <= report.stats.rounds <= 2
    body, listed = report.markdown.split("## Sources")
    numbers = cited_numbers(body)
    assert numbers == list(range(1, len(numbers) + 1))
    assert len([line for line in listed.splitlines() if line[:1].isdigit()]) == len(numbers)
    assert [s.number for s in report.cited_sources()] == numbers
    assert {s.url for s in report.cited_sources()} <= {s.url for s in report.sources}
    assert report.stats.llm_calls >= 3 and report.stats.prompt_tokens > 0


async def test_the_deep_pipeline_rejects_junk_briefs_questions_and_sub_topics(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    from ponder.prompts import BRIEF_SYSTEM, CLARIFY_SYSTEM

    scripted.overrides["Clarification"] = {
        "need_clarification": True,
        "question": CLARIFY_SYSTEM[:200],
        "verification": "",
    }
    scripted.overrides["ResearchBrief"] = {"brief": BRIEF_SYSTEM}
    decisions = iter([["reflection", "knowledge gap", "moon and tides"]])
    scripted.overrides["SupervisorDecision"] = lambda _r: {
        "reflection": "r",
        "subtopics": next(decisions, []),
        "research_complete": False,
    }
    report = await aresearch(TOPIC, **settings(rig, corpus, mode="deep"))  # no ask=: no pause
    plans = [e for e in rig.chat_log() if e.schema == "QueryPlan"]
    assert [e.messages[-1]["content"].splitlines()[0] for e in plans] == ["Topic: moon and tides"]
    brief = next(e for e in rig.chat_log() if e.schema == "SupervisorDecision").messages[-1]
    assert f"Brief: {TOPIC}" in brief["content"]  # the echoed brief was replaced by the request
    assert report.stats.texts_rejected == 4  # the question, the brief, two sub-topics
    assert "## Sources" in report.markdown


async def test_thinking_without_an_opening_tag_is_withdrawn_from_the_live_draft(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    thinking = "Okay, the sources mention the Moon, so I will start from there.\n</think>\n"
    answer = thinking + GOOD_REPORT
    scripted.overrides["text"] = Reply(pieces=[answer[i : i + 6] for i in range(0, len(answer), 6)])
    events: list[tuple[str, str]] = []
    report: Report | None = None
    async for item in stream(TOPIC, **settings(rig, corpus)):
        if isinstance(item, Report):
            report = item
        elif item.kind in ("token", "discarded"):
            events.append((item.kind, str(item.data.get("text") or item.data.get("reason"))))
    assert report is not None and "Okay" not in report.markdown
    kinds = [kind for kind, _ in events]
    withdrawn = kinds.index("discarded")
    assert "Okay" in "".join(text for _, text in events[:withdrawn])
    assert "".join(text for _, text in events[withdrawn + 1 :]) == GOOD_REPORT.strip()
