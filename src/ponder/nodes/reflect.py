"""reflect: is the summary enough, what is missing, which follow-ups, and how broad is it."""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ponder import prompts
from ponder.nodes.context import NodeContext, node
from ponder.nodes.query import new_queries
from ponder.services.llm import Prompt
from ponder.state import LoopState, ReflectionState


class Reflection(BaseModel):
    is_sufficient: bool
    knowledge_gap: str = Field(max_length=400)
    follow_up_queries: list[str]
    scope: Literal["focused", "broad"]
    subtopics: list[str] = Field(default_factory=list, max_length=6)


@functools.cache
def reflection_schema(n: int) -> type[Reflection]:
    return create_model(
        "Reflection",
        __base__=Reflection,
        follow_up_queries=(list[str], Field(min_length=1, max_length=n)),
    )


@node("reflect")
async def reflect(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    already = state.get("queries_run", [])
    n = ctx.config.queries_per_round
    prompt = Prompt.simple(
        prompts.REFLECT_SYSTEM.format(n=n),
        prompts.fill(
            prompts.REFLECT_USER,
            topic=topic,
            summary=state.get("running_summary") or "(empty)",
            already=already,
        ),
    )
    schema = reflection_schema(n)
    fallback = schema(
        is_sufficient=False,
        knowledge_gap="unknown (reflection failed)",
        follow_up_queries=[f"{topic} details"],
        scope="focused",
    )
    result = await ctx.llm().structured(schema, prompt, fallback)
    reflection = ReflectionState(
        is_sufficient=result.is_sufficient,
        knowledge_gap=result.knowledge_gap,
        follow_up_queries=result.follow_up_queries,
        scope=result.scope,
        subtopics=[s for s in result.subtopics if s.strip()],
    )
    ctx.emit(
        "reflection", sufficient=result.is_sufficient, scope=result.scope, gap=result.knowledge_gap
    )
    return {
        "reflection": reflection,
        "queries": new_queries(result.follow_up_queries, already, n),
    }
