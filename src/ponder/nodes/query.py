"""generate_query: plan this round's search queries."""

from __future__ import annotations

import functools
import re
from datetime import date
from typing import Any

from pydantic import BaseModel, Field, create_model

from ponder import prompts
from ponder.nodes.context import NodeContext, node
from ponder.services.llm import Prompt
from ponder.state import LoopState


class QueryPlan(BaseModel):
    rationale: str = Field(max_length=400)
    queries: list[str]


@functools.cache
def query_plan_schema(n: int) -> type[QueryPlan]:
    """QueryPlan with 1..n queries, so constrained decoding cannot exceed the budget."""
    return create_model(
        "QueryPlan",
        __base__=QueryPlan,
        queries=(list[str], Field(min_length=1, max_length=n)),
    )


def normalise_query(query: str) -> str:
    return " ".join(query.lower().split())


def has_words(query: str) -> bool:
    """Small models sometimes emit punctuation as a query; such a query finds nothing."""
    return re.search(r"\w{2,}", query) is not None


def new_queries(candidates: list[str], already: list[str], limit: int) -> list[str]:
    """Candidates that are non-empty and not run before (nor repeated), at most ``limit``."""
    seen = {normalise_query(q) for q in already}
    fresh: list[str] = []
    for query in candidates:
        key = normalise_query(query)
        if key and key not in seen and has_words(key):
            seen.add(key)
            fresh.append(" ".join(query.split())[:300])
    return fresh[:limit]


@node("generate_query")
async def generate_query(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    already = state.get("queries_run", [])
    n = ctx.config.queries_per_round
    context = f"Research brief: {state['brief']}\n" if state.get("brief") else ""
    prompt = Prompt.simple(
        prompts.QUERY_SYSTEM.format(n=n),
        prompts.fill(
            prompts.QUERY_USER,
            topic=topic,
            context=context,
            already=already or "none",
            today=date.today(),
        ),
    )
    schema = query_plan_schema(n)
    plan = await ctx.llm().structured(schema, prompt, lambda: schema(rationale="", queries=[topic]))
    queries = new_queries(plan.queries, already, n) or new_queries(
        [topic, f"{topic} overview"], already, 1
    )
    ctx.emit("queries", queries=queries)
    return {"queries": queries}
