"""The Python API in its sync, async and streaming forms, against the scripted rig."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from support import findings_by_source, over_corpus, sensible_summary
from support.edges import here, history

import ponder
from ponder import (
    Configuration,
    ConfigurationError,
    InvalidInputError,
    ProgressEvent,
    Report,
    aresearch,
    aresume,
    research,
    resume,
    stream,
)
from ponder.core.events import EventKind
from ponder.testing import ChatRequest, Rig, ScriptedBackend

SRC = Path(__file__).resolve().parents[2] / "src"


def settings(rig: Rig, corpus: Path, **extra: Any) -> dict[str, Any]:
    return over_corpus(rig, corpus, **{"mode": "loop", "max_loops": 2, **extra})


def test_research_blocks_and_returns_a_cited_report(rig: Rig, corpus: Path) -> None:
    report = research("How do tides work?", **settings(rig, corpus))
    assert isinstance(report, Report)
    assert report.topic == "How do tides work?"
    assert "[1]" in report.markdown and "## Sources" in report.markdown
    assert report.sources[0].passages
    assert report.stats.llm_calls == len(rig.chat_log())


async def test_aresearch_uses_the_given_thread_id(rig: Rig, corpus: Path) -> None:
    report = await aresearch("How do tides work?", thread_id="my-thread", **settings(rig, corpus))
    assert report.thread_id == "my-thread"

    record = history().get("my-thread")
    assert record is not None and record.status == "done"


async def test_stream_yields_typed_events_then_the_report(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    items = [item async for item in stream("How do tides work?", **settings(rig, corpus))]
    *events, last = items
    assert isinstance(last, Report)
    assert events and all(isinstance(e, ProgressEvent) for e in events)
    assert {e.kind for e in events} <= set(typing.get_args(EventKind))
    rounds = [e for e in events if e.kind == "round_start"]
    assert [e.data["round"] for e in rounds] == list(range(1, last.stats.rounds + 1))
    assert all(e.data["max_rounds"] == 2 and e.data["queries"] for e in rounds)
    tokens = sum(e.data.get("tokens", 0) for e in events if e.kind == "node_end")
    assert tokens == last.stats.prompt_tokens + last.stats.completion_tokens
    assert events[0].kind == "node_start"


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({"modle": "x"}, "Unknown configuration key(s): modle. Valid keys:"),
        ({"max_loops": 0}, "max_loops"),
        ({"search": "bing"}, "search"),
        ({"temperature": "hot"}, "temperature"),
        # Paths that cannot name a file: refused with why, not a crash inside pathlib.
        ({"docs": ["notes\x00.md"]}, "NUL byte"),
        ({"docs": ["~nosuchuser/notes"]}, "no user 'nosuchuser'"),
        ({"docs_roots": ["/srv/\ud800"]}, "characters that no file name"),
    ],
)
async def test_keyword_configuration_is_validated(config: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigurationError, match=r".*") as caught:
        await aresearch("How do tides work?", **config)
    assert says in str(caught.value)
    with pytest.raises(ConfigurationError):
        research("How do tides work?", **config)
    with pytest.raises(ConfigurationError):
        Configuration.create(**config)


@pytest.mark.parametrize("topic", ["", "   ", "x" * 5000])
def test_bad_topics_raise_with_a_fix(topic: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        research(topic)
    assert str(caught.value).endswith(".")


async def test_resume_of_a_finished_run_returns_it_without_new_calls(
    rig: Rig, corpus: Path
) -> None:
    first = await aresearch("How do tides work?", **settings(rig, corpus))
    calls = len(rig.chat_log())
    again = await aresume(first.thread_id)
    assert again.markdown == first.markdown
    assert [s.url for s in again.sources] == [s.url for s in first.sources]
    assert len(rig.chat_log()) == calls


async def test_clarification_via_async_ask_callback(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    questions: list[str] = []

    async def ask(question: str) -> str:
        questions.append(question)
        return "the North Sea"

    asked = iter([True])
    scripted.overrides["Clarification"] = lambda _r: {
        "need_clarification": next(asked, False),
        "question": "Which sea?",
        "verification": "",
    }
    report = await aresearch("How do tides work?", ask=ask, **settings(rig, corpus, mode="deep"))
    assert questions == ["Which sea?"]
    assert report.markdown


def test_resume_sync_form_reports_unknown_runs() -> None:
    with pytest.raises(ponder.PonderError, match="ponder runs"):
        resume("never-started")


def test_compiled_graphs_are_importable_for_composition() -> None:
    from ponder.graphs.studio import RECURSION_LIMIT, deep, graph

    assert set(graph.get_input_jsonschema()["properties"]) == {"topic", "messages"}
    assert {"report", "sources", "messages"} <= set(graph.get_output_jsonschema()["properties"])
    for compiled in (graph, deep):
        context = compiled.get_context_jsonschema()
        assert set(context["properties"]) == set(Configuration.model_fields)
        assert all(p.get("description") for p in context["properties"].values())
        assert compiled.config["recursion_limit"] == RECURSION_LIMIT
        assert compiled.checkpointer is None  # the host brings its own
    assert RECURSION_LIMIT >= 3 * 20  # room for the largest max_loops


def test_public_surface_is_sorted_resolvable_and_lazy() -> None:
    assert ponder.__all__ == sorted(ponder.__all__)
    assert all(getattr(ponder, name) is not None for name in ponder.__all__)
    probe = "import sys, ponder; print([m for m in ('pydantic', 'langgraph') if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]"


async def test_report_sources_are_numbered_as_the_report_cites_them(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["Reflection"] = {
        "is_sufficient": True,
        "knowledge_gap": "",
        "follow_up_queries": ["x"],
        "scope": "focused",
        "subtopics": [],
    }
    scripted.overrides["SummaryUpdate"] = sensible_summary

    def report_citing_3_then_1(request: ChatRequest) -> str:
        said = findings_by_source(request)
        return f"# T\n\n{said[3]} [3]\n\n{said[1]} [1]\n"

    scripted.overrides["text"] = report_citing_3_then_1
    report = await aresearch(
        "How do tides work?", model="scripted", ollama_base_url=rig.url, search="local",
        docs=[str(corpus)], mode="loop",
    )  # fmt: skip
    cited = report.cited_sources()
    assert [s.number for s in cited] == [1, 2] and [s.registry_number for s in cited] == [3, 1]
    listed = report.markdown.split("## Sources")[1]
    for ref in cited:
        assert f"{ref.number}. {ref.title} — {ref.url}" in listed
    assert sorted(s.number for s in report.sources) == list(range(1, len(report.sources) + 1))


async def test_a_used_thread_id_is_refused_and_points_to_resume(rig: Rig, corpus: Path) -> None:
    config = settings(rig, corpus, max_loops=1)
    await aresearch("Tides", thread_id="same", **config)
    with pytest.raises(InvalidInputError, match="resume"):
        await aresearch("Something else", thread_id="same", **config)


def test_resuming_a_run_that_is_still_running_is_refused() -> None:

    history().start("live", "topic", {})  # this very process holds it
    with pytest.raises(InvalidInputError, match="still running"):
        resume("live")


def test_answer_budget_must_leave_room_for_the_prompt() -> None:
    with pytest.raises(ConfigurationError, match="num_predict"):
        Configuration.create(num_ctx=1024, num_predict=1024)


async def test_resume_can_point_the_run_at_another_ollama(rig: Rig, corpus: Path) -> None:
    from ponder import OllamaUnavailableError

    config = {"model": "scripted", "search": "local", "docs": [str(corpus)], "mode": "loop",
              "max_loops": 1}  # fmt: skip
    with pytest.raises(OllamaUnavailableError):
        await aresearch("Tides", thread_id="moved", ollama_base_url="http://127.0.0.1:9", **config)
    report = await aresume("moved", ollama_base_url=rig.url)
    assert report.markdown.startswith("# ") and report.sources
    record = history().get("moved")
    assert record is not None and record.status == "done"
    assert record.config["ollama_base_url"] == rig.url  # later resumes keep the new place


def test_every_statistic_a_node_counts_reaches_the_callers_run_stats() -> None:
    """Stats are RunStats' fields: each counted figure arrives whole, and counting a name
    that is no field is a bug that raises instead of a figure dropped on the way."""
    from ponder.core.result import RunStats
    from ponder.nodes.context import NodeContext
    from ponder.settings.configuration import Configuration

    counted = [
        name
        for name, value in RunStats().model_dump().items()
        if isinstance(value, int | float)
        and not isinstance(value, bool)
        and name not in ("rounds", "wall_seconds")  # the run's, not a node's
    ]
    ctx = NodeContext("reflect", Configuration(), here())
    for name in counted:
        ctx.count(name, 2)
    stats = RunStats.from_state(ctx.stats(0.5), rounds=1, wall=1.0)
    assert {name: getattr(stats, name) for name in counted} == dict.fromkeys(counted, 2)
    with pytest.raises(KeyError, match="not a RunStats field"):
        ctx.count("sections_writen")


async def test_a_run_reads_the_environment_once_at_its_edge(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The machine's settings and keys reach every node, the deep pipeline's researchers
    (a subgraph) too, from the API's one read: no node reads the environment again."""
    import ponder.settings.run_settings as run_settings

    def read_again() -> None:
        raise AssertionError("a node read the environment itself")

    monkeypatch.setattr(run_settings, "read_environment", read_again)
    scripted.overrides["SupervisorDecision"] = lambda _r: {
        "reflection": "r", "subtopics": ["tides", "moon"], "research_complete": False,
    }  # fmt: skip
    report = await aresearch(
        "Oceans", **over_corpus(rig, corpus, mode="deep", max_loops=1, allow_clarification=False)
    )
    assert report.sources
