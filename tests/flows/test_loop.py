"""The research loop against the scripted rig over a local corpus: routing, bounds, budgets."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from support import findings_by_source, long_summary, over_corpus, sensible_summary

from ponder import Report, aresearch, stream
from ponder.core.errors import SearchBackendError
from ponder.nodes.route import route_research, route_research_no_handoff, route_start
from ponder.services.text.citations import cited_numbers
from ponder.testing import ChatRequest, Rig, ScriptedBackend


def settings(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    return over_corpus(rig, corpus, **{"mode": "loop", **extra})


def reflection(
    sufficient: bool = False, scope: str = "focused", queries: list[str] | None = None
) -> dict[str, Any]:
    return {
        "is_sufficient": sufficient,
        "knowledge_gap": "more detail",
        "follow_up_queries": queries or ["moon orbit"],
        "scope": scope,
        "subtopics": [],
    }


def fresh_followups() -> Any:
    counter = itertools.count(1)
    return lambda _request: reflection(queries=[f"tide question {next(counter)}"])


def reflections(rig: Rig) -> int:
    return sum(1 for e in rig.chat_log() if e.schema == "Reflection")


async def test_runs_exactly_max_loops_rounds_when_never_sufficient(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = fresh_followups()
    report = await aresearch("How do tides work?", **settings(rig, corpus, max_loops=3))
    assert report.stats.rounds == 3
    # After the last round nothing the model says can change the outcome: it is not asked.
    assert reflections(rig) == 2


async def test_stops_early_when_sufficient_and_the_summary_backs_it(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SummaryUpdate"] = sensible_summary
    scripted.overrides["Reflection"] = reflection(sufficient=True)
    report = await aresearch("How do tides work?", **settings(rig, corpus, max_loops=5))
    assert report.stats.rounds == 1 and reflections(rig) == 1
    assert report.stats.sufficient_overruled == 0


async def test_sufficient_without_evidence_is_overruled_until_the_budget_ends(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    thin = {"findings": [{"statement": "Tides rise and fall", "sources": [1]}]}
    scripted.overrides["SummaryUpdate"] = thin
    scripted.overrides["Reflection"] = reflection(sufficient=True, queries=["tide tables"])
    report = await aresearch("How do tides work?", **settings(rig, corpus, max_loops=3))
    assert report.stats.rounds == 3  # exact: never a fourth round
    assert reflections(rig) == 2 and report.stats.sufficient_overruled == 2


async def test_the_last_round_still_reflects_when_a_broad_verdict_could_hand_off(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = fresh_followups()
    report = await aresearch(
        "How do tides work?", **settings(rig, corpus, mode="auto", max_loops=2)
    )
    assert report.stats.rounds == 2 and reflections(rig) == 2


@pytest.mark.parametrize(("mode", "asked"), [("auto", True), ("loop", False), ("deep", False)])
async def test_scope_is_asked_only_where_a_broad_verdict_could_hand_off(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, mode: str, asked: bool
) -> None:
    """In mode=loop, and in the deep pipeline's researchers, no verdict on scope can change
    what happens: the model is not asked for it (nor does it spend tokens on sub-topics)."""
    seen: list[tuple[set[str], str]] = []

    def record(request: Any) -> dict[str, Any]:
        seen.append((set(request.format["properties"]), request.messages[0]["content"]))
        return reflection(queries=[f"tide question {len(seen)}"])

    scripted.overrides["Reflection"] = record
    await aresearch("How do tides work?", **settings(rig, corpus, mode=mode, max_loops=2))
    assert seen, "the model was never asked to reflect"
    for fields, system in seen:
        assert ({"scope", "subtopics"} <= fields) is asked
        assert ("scope" in system) is asked
        assert {"is_sufficient", "knowledge_gap", "follow_up_queries"} <= fields


async def test_the_question_itself_is_searched_first_and_repeats_are_not_searched_again(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": ["tides", "Tides "]}
    scripted.overrides["Reflection"] = {
        **reflection(queries=["moon orbit", "TIDES", "How do tides work?"]),
        "knowledge_gap": "how the Moon's orbit matters",
    }
    searched: list[list[str]] = []
    async for item in stream("How do tides work?", **settings(rig, corpus, max_loops=2)):
        if isinstance(item, Report):
            report = item
        elif item.kind == "round_start":
            searched.append(item.data["queries"])
    assert report.stats.search_calls == 3  # the question and "tides", then only "moon orbit"
    assert report.stats.queries_replaced == 0
    assert searched[0][0] == "How do tides work?" and searched[1] == ["moon orbit"]


async def test_reading_notes_shown_to_later_prompts_do_not_repeat_the_question(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    """When the model's summary fails, each page read leaves a note; the prompts they are
    shown in start with the topic, and a long question repeated on every line cost tokens."""
    topic = "How do tides work and why do harbours publish tide tables?"
    scripted.overrides["SummaryUpdate"] = {"findings": []}  # unusable: notes are kept
    scripted.overrides["Reflection"] = fresh_followups()
    await aresearch(topic, **settings(rig, corpus, max_loops=2))
    later = [e for e in rig.chat_log() if e.schema in ("Reflection", "SummaryUpdate")]
    notes = [
        line
        for entry in later
        for line in entry.messages[-1]["content"].splitlines()
        if line.startswith("- Read for ")
    ]
    assert any(line.startswith("- Read for the topic: ") for line in notes), notes
    assert not [line for line in notes if topic in line]


class Broken:
    """A backend that fails every search with ``error``."""

    name = "broken"

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def search(self, query: str, max_results: int) -> list[Any]:
        raise self.error


async def test_a_round_whose_searches_all_fail_ends_with_a_clear_report(
    rig: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = Broken(SearchBackendError("index unreadable"))
    monkeypatch.setattr("ponder.nodes.web_research.make_search", lambda *_, **__: broken)
    report = await aresearch("How do tides work?", **settings(rig, corpus, max_loops=2))
    assert "No sources were found" in report.markdown
    assert any("index unreadable" in w for w in report.stats.warnings)
    assert report.sources == []


async def test_a_bug_in_a_search_backend_raises_instead_of_thinning_the_report(
    rig: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = Broken(AttributeError("'NoneType' object has no attribute 'hits'"))
    monkeypatch.setattr("ponder.nodes.web_research.make_search", lambda *_, **__: broken)
    with pytest.raises(AttributeError, match="no attribute 'hits'"):
        await aresearch("How do tides work?", **settings(rig, corpus, max_loops=2))


async def test_citation_to_a_missing_source_is_removed_and_counted(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = reflection(sufficient=True)
    scripted.overrides["text"] = "# Tides\n\nThe Moon pulls the sea [1]. Aliens do too [99].\n"
    report = await aresearch("How do tides work?", **settings(rig, corpus))
    assert "[99]" not in report.markdown
    assert report.stats.citations_removed >= 1
    body, sources = report.markdown.split("## Sources")
    assert cited_numbers(body) == [1]
    assert len([line for line in sources.splitlines() if line[:1].isdigit()]) == 1


async def test_sources_section_lists_exactly_cited_sources_renumbered(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["SummaryUpdate"] = sensible_summary
    scripted.overrides["Reflection"] = reflection(sufficient=True)

    def report(request: ChatRequest) -> str:
        said = findings_by_source(request)
        both = f"{said[3].rstrip('.')}, and {said[1].rstrip('.')}"
        return f"# T\n\n{said[3]} [3]\n\nAgain: {both} [3][1].\n\n## References\n1. made up\n"

    scripted.overrides["text"] = report
    report = await aresearch("How do tides work?", **settings(rig, corpus))
    assert len(report.sources) >= 3
    body = report.markdown.split("## Sources")[0]
    assert cited_numbers(body) == [1, 2]  # old 3 → 1, old 1 → 2
    assert "made up" not in report.markdown
    listed = report.cited_sources()
    assert [s.number for s in listed] == [1, 2]
    registry = {s.registry_number: s.url for s in report.sources}
    assert listed[0].url == registry[3] and listed[1].url == registry[1]


async def test_sources_are_deduplicated_and_keep_their_numbers(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = fresh_followups()
    report = await aresearch("How do tides work?", **settings(rig, corpus, max_loops=3))
    urls = [s.url for s in report.sources]
    assert len(urls) == len(set(urls)) == 3  # three files, found again and again
    assert sorted(s.number for s in report.sources) == [1, 2, 3]


async def test_prompt_size_stays_within_budget_over_eight_rounds(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    for i in range(1, 9):  # one new document per round, found by that round's query
        (corpus / f"extra{i}.md").write_text("Tide fact: " + f"marker{i} sea level data " * 150)
    scripted.overrides["SummaryUpdate"] = long_summary
    markers = itertools.count(2)
    scripted.overrides["Reflection"] = lambda _r: reflection(
        queries=[f"tide marker{next(markers)}"]
    )
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": ["tide marker1"]}
    config = settings(rig, corpus, max_loops=8, num_ctx=4096, num_predict=512, summary_tokens=400)
    report = await aresearch("How do tides work?", **config)
    assert report.stats.rounds == 8
    sizes = [e.prompt_chars for e in rig.chat_log() if e.schema == "SummaryUpdate"]
    assert len(sizes) == 8
    budget_chars = (4096 - 512 - 64) * 3.5
    assert max(sizes) <= budget_chars
    assert sizes[7] <= sizes[1] * 1.15  # flat: the summary is rewritten, not appended


async def test_graph_recursion_limit_follows_max_loops(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = fresh_followups()
    report = await aresearch("How do tides work?", **settings(rig, corpus, max_loops=12))
    assert report.stats.rounds == 12  # 36+ supersteps: past LangGraph's default limit of 25


def _state(**values: Any) -> Any:
    return {"topic": "t", "research_loop_count": 1, "queries": ["q"], **values}


@pytest.mark.parametrize(
    ("state", "mode", "expected"),
    [
        (_state(reflection=reflection(scope="broad")), "auto", "deep_research"),
        (_state(reflection=reflection(scope="broad")), "loop", "web_research"),
        (_state(reflection=reflection(sufficient=True)), "auto", "finalize_summary"),
        (_state(reflection=reflection(), research_loop_count=3), "auto", "finalize_summary"),
        (_state(reflection=reflection(), queries=[]), "auto", "finalize_summary"),
        (_state(reflection=reflection()), "auto", "web_research"),
    ],
)
def test_route_research_branches(state: Any, mode: str, expected: str) -> None:
    config: Any = {"configurable": {"mode": mode, "max_loops": 3}}
    assert route_research(state, config) == expected


def test_researchers_never_hand_off_and_deep_mode_starts_deep() -> None:
    broad = _state(reflection=reflection(scope="broad"))
    config: Any = {"configurable": {"mode": "auto", "max_loops": 3}}
    assert route_research_no_handoff(broad, config) == "web_research"
    assert route_start(broad, {"configurable": {"mode": "deep"}}) == "deep_research"
    assert route_start(broad, config) == "generate_query"


def test_schema_numbers_constrain_citations() -> None:
    from ponder.prompts.schemas import summary_schema

    schema = summary_schema([2, 5]).model_json_schema()
    text = str(schema)
    assert "[2, 5]" in text or "'enum': [2, 5]" in text
    request = ChatRequest(model="m", messages=[], format=schema)
    assert request.schema_title == "SummaryUpdate"


async def test_a_passage_is_shown_again_only_if_the_model_never_answered_on_it(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    from ponder.testing import Fault, auto_reply

    calls = itertools.count()
    scripted.overrides["SummaryUpdate"] = lambda r: (
        Fault("http500") if not next(calls) else (auto_reply(r))
    )
    scripted.overrides["Reflection"] = reflection(queries=["tides"])
    config = settings(rig, corpus, max_loops=3, queries_per_round=1, max_retries=0)
    report = await aresearch("How do tides work?", **config)
    summaries = [e for e in rig.chat_log() if e.schema == "SummaryUpdate"]
    # Round 1's call failed, so round 2 shows the same passages again; the model answered
    # on them there, so round 3, which finds nothing else, makes no summary call at all.
    assert report.stats.rounds == 3 and len(summaries) == 2
    assert "Tides are the rise and fall" in summaries[1].messages[-1]["content"]
