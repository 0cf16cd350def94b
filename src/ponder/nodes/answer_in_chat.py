"""answer_in_chat: in a chat-style run, the report comes back as the AI's message."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from ponder.core.state import LoopState


def answer_in_chat(state: LoopState) -> dict[str, Any]:
    """In a chat, the report is the AI's answer (once, even if a node already added it)."""
    report = state.get("report") or ""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    if not state.get("chat") or not report or (last is not None and last.text == report):
        return {}
    return {"messages": [AIMessage(report)]}
