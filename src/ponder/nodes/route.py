"""Routers: typed decisions between nodes. They read state and config, never write."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig

from ponder.core.deep_state import DeepState
from ponder.core.state import LoopState, graph_count
from ponder.core.stats import merge_stats, since
from ponder.services.research.budget import Spent, allowance_spent, budget_spent
from ponder.settings.configuration import Configuration
from ponder.settings.run_settings import run_configuration

AfterReflect = Literal["web_research", "finalize_summary", "deep_research"]
AtStart = Literal["generate_query", "deep_research"]
InResearcher = Literal["web_research", "finalize_summary"]


def route_start(state: LoopState, config: RunnableConfig) -> AtStart:
    """``mode=deep`` hands the topic to the deep pipeline before any loop round."""
    mode = run_configuration(config).mode
    return "deep_research" if mode == "deep" else "generate_query"


def can_hand_off(state: LoopState, settings: Configuration) -> bool:
    """Whether a broad verdict would hand this run to the deep pipeline: only in mode=auto,
    and never from a researcher (which has a brief) inside that pipeline."""
    return settings.mode == "auto" and not state.get("brief")


def rounds_done(state: LoopState, settings: Configuration) -> int:
    """The loop's rounds so far; a count the graph never writes reads as all of them."""
    return graph_count(state.get("research_loop_count", 0), settings.max_loops)


def route_research(state: LoopState, config: RunnableConfig) -> AfterReflect:
    """Hand off a broad topic, stop when sufficient, out of rounds or out of budget, else
    search again. A broad topic stays in the loop when the budget has no room for the deep
    pipeline (:func:`no_room_for_deep`): the loop writes its report."""
    settings = run_configuration(config)
    reflection: dict[str, Any] = dict(state.get("reflection") or {})
    if settings.mode == "auto" and reflection.get("scope") == "broad":
        return "finalize_summary" if no_room_for_deep(state, settings) else "deep_research"
    if reflection.get("is_sufficient"):
        return "finalize_summary"
    if rounds_done(state, settings) >= settings.max_loops:
        return "finalize_summary"
    if not state.get("queries"):
        return "finalize_summary"
    if budget_ended(state, settings):
        return "finalize_summary"
    return "web_research"


def budget_ended(state: LoopState, settings: Configuration) -> str | None:
    """The budget ("time", "tokens") that leaves no room for another round before the
    report (a researcher's: before its allowance is spent), or None
    (:mod:`ponder.services.research.budget`)."""
    allowance = state.get("allowance")
    if allowance is not None:
        return allowance_spent(spent_by(state, settings), allowance)
    return budget_spent(spent_by(state, settings), settings)


def no_room_for_deep(state: LoopState, settings: Configuration) -> str | None:
    """The budget that leaves the deep pipeline no room: its question, brief and decision
    (a round's worth of calls) and one researcher's round, before the report."""
    return budget_spent(spent_by(state, settings), settings, rounds=2)


def spent_by(state: LoopState, settings: Configuration) -> Spent:
    """What this turn has spent (a thread's earlier turns had budgets of their own)."""
    return Spent.of(_this_turn(state), rounds_done(state, settings))


def _this_turn(state: LoopState) -> dict[str, Any]:
    """The statistics of the thread's current turn: the thread's, less its earlier turns'."""
    return since(state.get("stats"), state.get("turn_stats"))


def deep_spent_by(state: DeepState, own: dict[str, Any] | None = None) -> Spent:
    """What this turn has spent in the deep pipeline, with ``own`` (what the asking node
    spent so far) and the loop's part before the hand-off: tokens as the model server
    counted them; rounds, every search round (the loop's and each researcher's); seconds,
    those before the supervisor's first round, then the wall clock's since (the sum of
    researchers' seconds would count a shared model server's time once per researcher;
    a stopped run's idle hours are counted by neither)."""
    stats = merge_stats(merge_stats(state.get("spent_before"), state.get("stats")), own)
    looped = "generate_query" in (state.get("spent_before") or {}).get("node_seconds", {})
    starts = int(looped) + len(state.get("researcher_results", []))
    spent = Spent.of(stats, int(stats.get("rounds") or 0), starts)
    started = state.get("supervisor_started")
    if not started:
        return spent
    # The wall clock, unless the run was stopped and resumed meanwhile: then the nodes'
    # own seconds (side by side counted one after another), which hold no idle time.
    wall = float(state.get("seconds_before") or 0.0) + max(time.time() - started, 0.0)
    return dataclasses.replace(spent, seconds=min(wall, spent.seconds))


def hand_off(state: LoopState) -> dict[str, Any]:
    """What the turn spent in the loop, handed on with it: the deep pipeline's budgets
    count the whole turn."""
    return {"spent_before": _this_turn(state)}


def route_research_no_handoff(state: LoopState, config: RunnableConfig) -> InResearcher:
    """The same decisions for a researcher inside the deep pipeline: never hand off again."""
    forced = dict(state.get("reflection") or {}, scope="focused")
    decision = route_research({**state, "reflection": forced}, config)  # type: ignore[typeddict-item]
    return "web_research" if decision == "web_research" else "finalize_summary"
