"""ask_user: pause the run with the clarifying question until the person answers.

Only pausing is done here (LangGraph's ``interrupt()``), so that resuming with the answer
does not repeat the model call that decided to ask. The answer, once received, is an
``answered`` event.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import interrupt

from ponder.core.deep_state import MAX_QUESTIONS, DeepState
from ponder.core.state import graph_count
from ponder.nodes.context import NodeContext, node


@node("ask_user")
async def ask_user(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    question = state.get("pending_question", "")
    # No event before the pause: this node runs again when the answer resumes it, and the
    # runner announces the question once (``clarification``) when the run pauses.
    answer = str(interrupt({"question": question})).strip()
    ctx.emit("answered", question=question, answer=answer)  # a live view shows it was received
    return {
        "conversation": [f"Question: {question}", f"Answer: {answer}"],
        "clarifications": graph_count(state.get("clarifications", 0), MAX_QUESTIONS) + 1,
        "pending_question": "",
    }
