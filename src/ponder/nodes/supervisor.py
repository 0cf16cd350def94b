"""supervisor: merge finished research, then choose the sub-topics to research next.

A structured decision each round — no tool calling, which small local models do badly. At
most ``max_concurrent_researchers`` run at once; the rest wait in ``queued`` for the next
round, and a sub-topic already assigned is never assigned again.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.types import Send

from ponder import prompts
from ponder.core.deep_state import DeepState, Note, ResearcherResult, ResearcherTask
from ponder.core.sources import Numbering, Source
from ponder.core.state import graph_count
from ponder.nodes.context import NodeContext, node
from ponder.nodes.route import deep_spent_by
from ponder.prompts.schemas import SupervisorDecision
from ponder.services.model.prompt import Prompt
from ponder.services.research.budget import deep_time_left, researchers_room, said
from ponder.services.research.vetting import is_junk_subtopic, normalise
from ponder.services.text.citations import remap
from ponder.settings.run_settings import run_configuration


def merge_results(
    known: list[Source], results: list[ResearcherResult]
) -> tuple[list[Source], list[Note]]:
    """Fold researchers' sources into the shared registry and renumber their summaries."""
    numbering = Numbering(known)
    merged: list[Source] = []
    notes: list[Note] = []
    for result in results:
        mapping: dict[int, int] = {}
        for source in result["sources"]:
            number = numbering.number(source["url"])
            mapping[source["number"]] = number
            merged.append(Source(**{**source, "number": number}))
        notes.append(
            Note(
                topic=result["topic"],
                summary=remap(result["summary"], mapping),
                error=result["error"],
            )
        )
    return merged, notes


def fresh_subtopics(
    candidates: list[str], assigned: list[str], topic: str
) -> tuple[list[str], int]:
    """Sub-topics not assigned before, and how many were junk: one made of the prompt's own
    words (a weak model's "reflection") would send a researcher after nothing."""
    seen = {normalise(t) for t in assigned}
    fresh = []
    junk = 0
    for subtopic in candidates:
        key = normalise(subtopic)
        if not key or key in seen:
            continue
        seen.add(key)
        if is_junk_subtopic(subtopic, topic):
            junk += 1
        else:
            fresh.append(" ".join(subtopic.split())[:200])
    return fresh, junk


def notes_text(state: DeepState, extra: list[Note]) -> str:
    parts = [f"Starting notes:\n{state['running_summary']}"] if state.get("running_summary") else []
    for note in [*state.get("notes", []), *extra]:
        parts.append(f"Sub-topic: {note['topic']}\n{note['summary'] or note['error']}")
    return "\n\n".join(parts) or "(none yet)"


@node("supervisor")
async def supervisor(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    began = _began(state)
    state = {**state, **began}  # type: ignore[typeddict-item]
    results = state.get("researcher_results", [])
    new_results = results[state.get("merged_results", 0) :]
    sources, notes = merge_results(state.get("sources", []), new_results)
    for note in notes:
        if note["error"]:
            ctx.warn(f"Researcher on {note['topic']!r}: {note['error']}")
    update: dict[str, Any] = {
        "sources": sources, "notes": notes, "merged_results": len(results), **began,
    }  # fmt: skip
    done_rounds = graph_count(state.get("supervisor_round", 0), ctx.config.max_supervisor_rounds)
    queued = state.get("queued", [])
    if done_rounds >= ctx.config.max_supervisor_rounds:
        if queued:
            ctx.warn(f"Out of supervisor rounds; not researched: {', '.join(queued)}.")
        return {**update, "queued": [], "dispatch": []}
    # A budget with no room for a researcher's round and the report ends the research here.
    spent = deep_spent_by(state)
    _, _, ended = researchers_room(spent, ctx.config, spent.seconds, 1)
    if ended:
        return {**update, **_ended_by(ended, ctx, done_rounds)}
    candidates = list(queued)
    complete = False
    if not queued or len(queued) < ctx.config.max_concurrent_researchers:
        decision = await _decide(state, ctx, notes)
        complete = decision.research_complete
        reflection: dict[str, Any] = dict(state.get("reflection") or {})
        seeds = reflection.get("subtopics", []) if done_rounds == 0 else []
        candidates += seeds  # what the loop saw is researched even if the model says done
        if not complete:
            candidates += decision.subtopics
    fresh, junk = fresh_subtopics(candidates, state.get("assigned", []), state["topic"])
    if junk:
        ctx.count("texts_rejected", junk)
    if done_rounds == 0 and not fresh:
        fresh = [state["topic"]]  # the first round always researches something
    spent = deep_spent_by(state, ctx.stats(0.0))  # the decision's call included
    wanted = max(1, min(len(fresh), ctx.config.max_concurrent_researchers))
    slots, allowance, ended = researchers_room(spent, ctx.config, spent.seconds, wanted)
    if ended:
        return {**update, **_ended_by(ended, ctx, done_rounds)}
    now, later = fresh[:slots], fresh[slots:]
    if not now:
        return {**update, "queued": [], "dispatch": [], "research_complete": True}
    started = float(state["supervisor_started"])
    left = deep_time_left(time.time() - started, done_rounds, spent, ctx.config)
    ctx.emit(
        "supervisor",
        round=done_rounds + 1,
        subtopics=now,
        waiting=later,
        **({"seconds_left": round(left, 1)} if left is not None else {}),
    )
    return {
        **update,
        "allowance": allowance,
        "assigned": now,
        "queued": later,
        "dispatch": now,
        "supervisor_round": done_rounds + 1,
        "research_complete": complete,
    }


def _began(state: DeepState) -> dict[str, Any]:
    """When the supervisor's first round began, and the turn's working seconds before it
    (from then on its budgets read the wall clock: :func:`ponder.nodes.route.deep_spent_by`)."""
    if state.get("supervisor_started"):
        return {}
    return {"supervisor_started": time.time(), "seconds_before": deep_spent_by(state).seconds}


def _ended_by(budget: str, ctx: NodeContext, done_rounds: int) -> dict[str, Any]:
    """The research ends here: ``budget`` leaves no room for another researcher's round."""
    ctx.warn(said(budget, ctx.config, done_rounds, ctx.config.max_supervisor_rounds))
    return {"queued": [], "dispatch": [], "stats": {"budget_ended": budget}}


async def _decide(state: DeepState, ctx: NodeContext, notes: list[Note]) -> SupervisorDecision:
    prompt = Prompt.simple(
        prompts.SUPERVISOR_SYSTEM,
        prompts.fill(
            prompts.SUPERVISOR_USER,
            brief=state.get("brief") or state["topic"],
            done=", ".join(state.get("assigned", [])) or "none",
            notes=notes_text(state, notes),
        ),
    )
    fallback = SupervisorDecision(reflection="", subtopics=[], research_complete=False)
    return await ctx.llm().structured(SupervisorDecision, prompt, fallback)


def route_supervisor(
    state: DeepState, config: RunnableConfig
) -> list[Send] | Literal["final_report"]:
    """One ``Send`` per sub-topic dispatched this round; none left → write the report.

    At most ``max_concurrent_researchers`` of them, whatever ``dispatch`` holds: the
    supervisor never writes more, so more came from outside the graph.
    """
    slots = run_configuration(config).max_concurrent_researchers
    dispatch = [t for t in state.get("dispatch", []) if isinstance(t, str)][:slots]
    if not dispatch:
        return "final_report"
    return [
        Send(
            "researcher",
            ResearcherTask(
                topic=topic,
                brief=state.get("brief", ""),
                sources=state.get("sources", []),
                allowance=state.get("allowance"),
            ),
        )
        for topic in dispatch
    ]
