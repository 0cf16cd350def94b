"""What the deep pipeline's budgets read: the question's spending carried over the hand-off,
the wall clock once researchers run (not a stopped run's idle hours), and whether a broad
question is handed on at all."""

from __future__ import annotations

import time
from typing import Any

from ponder.graphs.main import graph_builder
from ponder.nodes.route import deep_spent_by, hand_off, route_research


def stats(tokens: int, **seconds: float) -> dict[str, Any]:
    return {"prompt_tokens": tokens, "completion_tokens": 0, "llm_calls": 1,
            "node_seconds": seconds, "rounds": 1 if "reflect" in seconds else 0}  # fmt: skip


def test_the_hand_off_carries_this_questions_spending_not_the_threads() -> None:
    earlier = stats(5000, reflect=50.0)
    now = {"prompt_tokens": 5800, "completion_tokens": 0, "llm_calls": 3,
           "node_seconds": {"reflect": 58.0}, "rounds": 2}  # fmt: skip
    carried = hand_off({"stats": now, "turn_stats": earlier})["spent_before"]  # type: ignore[typeddict-item]
    assert carried["prompt_tokens"] == 800 and carried["node_seconds"] == {"reflect": 8.0}
    deep = deep_spent_by({"spent_before": carried, "stats": stats(300, supervisor=1.0)})
    assert deep.tokens == 1100 and deep.seconds == 9.0


def test_once_researchers_run_the_wall_clock_counts_but_not_a_stopped_runs_idle_hours() -> None:
    spent_nodes = stats(300, supervisor=1.0, summarize_sources=30.0, reflect=20.0)
    running = {"stats": spent_nodes, "supervisor_started": time.time() - 10,
               "seconds_before": 5.0}  # fmt: skip
    assert 14.9 < deep_spent_by(running).seconds < 16, "researchers side by side: the wall"  # type: ignore[arg-type]
    resumed = {**running, "supervisor_started": time.time() - 7200}
    assert deep_spent_by(resumed).seconds == 51.0, "stopped for two hours: the nodes' own"  # type: ignore[arg-type]


def test_a_broad_question_stays_in_the_loop_when_the_deep_pipeline_would_not_fit() -> None:
    # One round of 1,000 tokens: the deep pipeline needs two rounds' worth and the report.
    state: dict[str, Any] = {
        "topic": "t", "research_loop_count": 1, "queries": ["q"],
        "stats": stats(1000, reflect=1.0, web_research=1.0, summarize_sources=1.0),
        "reflection": {"is_sufficient": False, "scope": "broad", "subtopics": ["a", "b"]},
    }  # fmt: skip
    settings = {"num_predict": 256, "summary_tokens": 200, "evidence_tokens": 300}
    reserve = 256 + 200 + 300 + 600
    roomy = {"configurable": {**settings, "token_budget": 1000 + 2500 + reserve + 10}}
    tight = {"configurable": {**settings, "token_budget": 1000 + 1250 + reserve + 10}}
    assert route_research(state, roomy) == "deep_research"  # type: ignore[arg-type]
    assert route_research(state, tight) == "finalize_summary"  # type: ignore[arg-type]


def test_both_ways_into_the_deep_pipeline_pass_through_the_hand_off() -> None:
    edges = {(e.source, e.target) for e in graph_builder().compile().get_graph().edges}
    assert ("hand_off", "deep_research") in edges
    assert ("reflect", "hand_off") in edges and ("take_question", "hand_off") in edges
    assert ("reflect", "deep_research") not in edges
