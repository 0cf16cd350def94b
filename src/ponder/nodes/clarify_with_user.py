"""clarify_with_user: decide whether one question is truly needed (hard cap: two).

Deciding and asking are two nodes so that resuming after the person answers does not repeat
the model call: ``ask_user`` (:mod:`.ask_user`) only pauses with LangGraph's ``interrupt()``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ponder import prompts
from ponder.core.deep_state import MAX_QUESTIONS, DeepState, conversation_text
from ponder.core.state import graph_count
from ponder.nodes.context import NodeContext, node
from ponder.prompts.schemas import Clarification
from ponder.services.model.prompt import Prompt
from ponder.services.research.vetting import usable_text


@node("clarify_with_user")
async def clarify_with_user(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    if state.get("sources") and not state.get("conversation"):
        carried = [{"number": s["number"], "url": s["url"]} for s in state.get("sources", [])]
        ctx.emit("handoff", sources=carried)
    asked = graph_count(state.get("clarifications", 0), MAX_QUESTIONS)
    if not ctx.config.allow_clarification or asked >= MAX_QUESTIONS:
        return {"pending_question": ""}
    prompt = Prompt.simple(
        prompts.CLARIFY_SYSTEM,
        prompts.fill(
            prompts.CLARIFY_USER, topic=state["topic"], conversation=conversation_text(state)
        ),
    )
    fallback = Clarification(need_clarification=False, question="", verification="")
    decision = await ctx.llm().structured(Clarification, prompt, fallback)
    question = decision.question.strip() if decision.need_clarification else ""
    if question and (not usable_text(question) or asked_before(question, state)):
        # A garbled question helps nobody, and one already answered would tell the person
        # their answer went unheard: research the request as it stands.
        ctx.count("texts_rejected")
        question = ""
    return {"pending_question": question}


def asked_before(question: str, state: DeepState) -> bool:
    """Whether the person was asked this already (the same words, whatever the case and
    punctuation): a small model re-asks its question after the answer."""
    words = _words(question)
    return any(
        _words(line.removeprefix("Question: ")) == words
        for line in state.get("conversation", [])
        if line.startswith("Question: ")
    )


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def route_clarify(state: DeepState) -> Literal["ask_user", "write_research_brief"]:
    return "ask_user" if state.get("pending_question") else "write_research_brief"
