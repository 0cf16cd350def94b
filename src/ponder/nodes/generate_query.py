"""generate_query: plan the first round's searches: the question itself, one search for each
of its parts (aspects), then the model's. The parts are found here, once per question (a
follow-up's, a researcher's sub-topic's), and carried in the state for the later rounds and
the report."""

from __future__ import annotations

from datetime import date
from typing import Any

from ponder import prompts
from ponder.core.state import LoopState
from ponder.nodes.context import NodeContext, node
from ponder.prompts.schemas import query_plan_schema
from ponder.services.model.prompt import Prompt
from ponder.services.research.aspects import aspects_of, carry, with_aspects
from ponder.services.research.vetting import (
    VettedQueries,
    normalise,
    question_query,
    vet_queries,
)


async def _planned(state: LoopState, ctx: NodeContext, already: list[str], n: int) -> VettedQueries:
    """Up to ``n`` queries from the model, vetted (junk replaced from the topic)."""
    topic = state["topic"]
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
    plan = await ctx.llm().structured(schema, prompt, schema.model_construct(queries=[]))
    vetted = vet_queries(
        plan.queries, topic=topic, already=already, limit=n, context=[state.get("brief", "")]
    )
    if vetted.replaced:
        ctx.count("queries_replaced", vetted.replaced)
    return vetted


@node("generate_query")
async def generate_query(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    already = state.get("queries_run", [])
    # The question itself is always searched first: whatever the model plans, the search
    # that most surely reaches the evidence is not left to it. It takes one of the slots.
    asked = question_query(topic)
    question = [asked] if normalise(asked) not in {normalise(q) for q in already} else []
    n = ctx.config.queries_per_round - len(question)
    taken = [*already, *question]
    planned = await _planned(state, ctx, taken, n) if n else VettedQueries([], 0)
    # Each part of a joined question gets its own search beside the whole question.
    aspects = aspects_of(topic)
    if aspects:
        ctx.emit("aspects", aspects=[a.query for a in aspects])
    queries = question + with_aspects(planned, aspects, aspects, taken, n)
    ctx.emit("queries", queries=queries)
    return {"queries": queries, "aspects": carry(topic, aspects)}
