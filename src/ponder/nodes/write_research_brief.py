"""write_research_brief: one brief from the whole conversation; it replaces, not extends."""

from __future__ import annotations

from typing import Any

from ponder import prompts
from ponder.core.deep_state import DeepState, conversation_text
from ponder.nodes.context import NodeContext, node
from ponder.prompts.schemas import ResearchBrief
from ponder.services.model.prompt import Prompt
from ponder.services.research.vetting import usable_text


@node("write_research_brief")
async def write_research_brief(state: DeepState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    conversation = conversation_text(state)
    prompt = Prompt.simple(
        prompts.BRIEF_SYSTEM,
        prompts.fill(
            prompts.BRIEF_USER,
            topic=topic,
            conversation=conversation,
            notes=state.get("running_summary") or "(nothing yet)",
        ),
    )
    fallback = ResearchBrief(brief=" ".join([topic, *conversation.splitlines()[1::2]]))
    result = await ctx.llm().structured(ResearchBrief, prompt, fallback)
    brief = result.brief.strip()
    if not usable_text(brief, [topic, conversation]):
        ctx.count("texts_rejected")
        brief = fallback.brief  # the request itself is an honest brief
    return {"brief": brief}
