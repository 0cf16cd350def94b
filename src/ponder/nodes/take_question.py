"""take_question: the question of a run, from ``topic`` or from chat-style input.

Chat-style input is what LangGraph chat clients send (Agent Chat UI, Open Agent Platform).

A run may start from ``{"messages": [...]}`` instead of ``{"topic": ...}``: the last human
message is the question, and the report comes back as an AI message. A later human
message on the same thread is a follow-up: the sources, the summary and the queries of
the earlier turns stay in the state, so the new question is researched with them in view
and nothing already searched is searched again. The round's own fields start anew, and so
does the record of passages shown to the model: a passage read for the first question may
answer the second, so it is shown again.

A new ``topic`` on a thread that already researched one (LangGraph Studio's input form, a
served client's second run) is a new question in the same way: it gets its own rounds, from
the first, not what the earlier question left of ``max_loops``.

Every question starts with one quick check of whether the web can be reached
(:func:`ponder.services.search.preflight`), before any model call: offline, the run
searches what needs no network and says so in one line, or, with nothing of the kind set
up, stops at once with an OfflineError that says what to do.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AnyMessage

from ponder.core.errors import InvalidInputError
from ponder.core.state import LoopState
from ponder.core.topic import clean_topic
from ponder.nodes.context import NodeContext, node
from ponder.services.search import preflight

# What one question's research rewrites; everything else (sources, summary, queries run,
# passages shown, stats) accumulates over the thread.
_PER_TURN: dict[str, Any] = {
    "research_loop_count": 0,
    "reflection": None,
    "handoff": "none",
    "queries": [],
    "round_findings": [],
    "report": "",
    "cited_sources": [],
}


@node("take_question")
async def take_question(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    """The topic: the last human message when the run came as chat, else as given; then
    the quick check of what can be searched."""
    update = question_of(state)
    topic = update.get("topic") or state["topic"]
    # Off the event loop: a name server may take its time (the check's deadline holds).
    await asyncio.to_thread(preflight, ctx.config, topic, ctx.warn)
    return update


def question_of(state: LoopState) -> dict[str, Any]:
    messages = state.get("messages") or []
    last = last_message(messages)
    if last is not None and last.type == "human":
        return {"topic": clean_topic(last.text), "chat": True, **_new_turn(state)}
    if not state.get("topic"):
        raise InvalidInputError(
            'Nothing to research: give {"topic": "..."} or a human message in "messages".'
        )
    return {"chat": False, **_new_turn(state)}


def _new_turn(state: LoopState) -> dict[str, Any]:
    """The per-question fields started anew on a thread with an earlier question; nothing
    on a new thread. (Only a run's input reaches this node: a resumed run goes on from
    where it stopped.)"""
    earlier = (
        len(state.get("messages") or []) > 1
        or state.get("report")
        or state.get("research_loop_count")
    )
    if not earlier:
        return {}
    began = {
        "turn_start": len(state.get("summarized") or []),
        "turn_stats": state.get("stats") or {},
        # A turn's budgets count its own spending; what ended the last turn does not end it.
        "stats": {"budget_ended": ""},
    }
    return _PER_TURN | began


def last_message(messages: list[AnyMessage]) -> AnyMessage | None:
    return messages[-1] if messages else None
