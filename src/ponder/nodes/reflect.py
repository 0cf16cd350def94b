"""reflect: is the summary enough, what is missing, which follow-ups, and how broad is it."""

from __future__ import annotations

from typing import Any, Literal

from ponder import prompts
from ponder.core.state import LoopState, ReflectionState
from ponder.nodes.context import NodeContext, node
from ponder.nodes.route import budget_ended, can_hand_off, rounds_done
from ponder.prompts.schemas import Reflection, Verdict, reflection_schema
from ponder.services.model.prompt import Prompt
from ponder.services.research.aspects import (
    Aspect,
    aspects_for,
    uncovered,
    with_aspects,
    worth_searching,
)
from ponder.services.research.vetting import (
    evidence,
    is_junk_subtopic,
    normalise,
    replacement_queries,
    vet_queries,
)


@node("reflect")
async def reflect(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    topic = state["topic"]
    if not _verdict_matters(state, ctx):
        return {"reflection": _LAST_ROUND, "queries": []}
    n = ctx.config.queries_per_round
    # Scope and sub-topics only matter where a broad verdict hands the run off.
    asks_scope = can_hand_off(state, ctx.config)
    prompt = _prompt(state, n, asks_scope)
    schema = reflection_schema(n, scope=asks_scope)
    # Not validated: with no follow-ups, ponder builds the next query from the topic.
    unsure: dict[str, Any] = {"scope": "focused", "subtopics": []} if asks_scope else {}
    fallback = schema.model_construct(
        is_sufficient=False, knowledge_gap="", follow_up_queries=[], **unsure
    )
    result = await ctx.llm().structured(schema, prompt, fallback)
    summary = state.get("running_summary") or ""
    aspects = aspects_for(topic, state.get("aspects"))
    gaps = uncovered(aspects, summary)
    sufficient = result.is_sufficient and _backed(summary, state, ctx) and _covered(gaps, ctx)
    scope, subtopics = _scope(result, topic)
    gap = _gap(result.knowledge_gap, gaps)
    queries: list[str] = []
    if not sufficient and rounds_done(state, ctx.config) < ctx.config.max_loops:
        wanted = worth_searching(gaps, summary, state.get("queries_run", []))
        queries = _next_queries(result.follow_up_queries, gap, state, ctx, (wanted, aspects))
    reflection = ReflectionState(
        is_sufficient=sufficient,
        knowledge_gap=gap,
        follow_up_queries=queries,
        scope=scope,
        subtopics=subtopics,
    )
    ctx.emit("reflection", sufficient=sufficient, scope=scope, gap=gap)
    return {"reflection": reflection, "queries": queries}


# After the last round the loop ends whatever the model says; only a hand-off could follow.
_LAST_ROUND = ReflectionState(
    is_sufficient=False, knowledge_gap="", follow_up_queries=[], scope="focused", subtopics=[]
)


def _prompt(state: LoopState, n: int, asks_scope: bool) -> Prompt:
    return Prompt.simple(
        prompts.REFLECT_SYSTEM.format(n=n, scope=prompts.REFLECT_SCOPE if asks_scope else ""),
        prompts.fill(
            prompts.REFLECT_USER,
            topic=state["topic"],
            summary=state.get("running_summary") or "(empty)",
            already=state.get("queries_run", []),
        ),
    )


def _verdict_matters(state: LoopState, ctx: NodeContext) -> bool:
    """False when no answer of the model could change what happens next, so it is not
    asked: after the last round of a run that cannot hand off (mode=loop, or a researcher),
    and when a budget leaves no room for another round (nor for the deep pipeline)."""
    if budget_ended(state, ctx.config):
        return False
    if rounds_done(state, ctx.config) < ctx.config.max_loops:
        return True
    return can_hand_off(state, ctx.config)


def _next_queries(
    candidates: list[str],
    gap: str,
    state: LoopState,
    ctx: NodeContext,
    aspects: tuple[list[Aspect], list[Aspect]] = ([], []),
) -> list[str]:
    """The follow-ups worth running: first a search for each part of the question no
    finding covers yet (``aspects``: those gaps, and all the parts), then the model's; junk
    replaced, and never none while rounds remain."""
    topic = state["topic"]
    already = state.get("queries_run", [])
    vetted = vet_queries(
        candidates,
        topic=topic,
        already=already,
        limit=ctx.config.queries_per_round,
        context=[state.get("brief", ""), state.get("running_summary") or ""],
        gap=gap,
    )
    gaps, every = aspects
    queries = with_aspects(vetted, gaps, every, already, ctx.config.queries_per_round)
    replaced = vetted.replaced
    if not queries:  # only repeats were proposed: build the next query ourselves
        queries = replacement_queries(topic, gap, already)[:1]
        replaced += len(queries)
    if replaced:
        ctx.count("queries_replaced", replaced)
    return queries


def _backed(summary: str, state: LoopState, ctx: NodeContext) -> bool:
    """Whether the summary has the evidence a 'sufficient' verdict claims (else overruled)."""
    found = evidence(summary, [state["topic"], state.get("brief", "")])
    settings = ctx.config
    if found.backs(settings.min_findings_to_stop, settings.min_sources_to_stop):
        return True
    ctx.count("sufficient_overruled")
    ctx.emit("overruled", findings=found.findings, sources=found.sources)
    return False


def _covered(gaps: list[Aspect], ctx: NodeContext) -> bool:
    """A part of the question with no finding keeps the loop going, whatever the verdict."""
    if not gaps:
        return True
    ctx.count("sufficient_overruled")
    ctx.emit("uncovered", aspects=[a.query for a in gaps])
    return False


def _gap(said: str, gaps: list[Aspect]) -> str:
    """The model's gap, or the uncovered parts when it names none of them."""
    if not gaps or any(a.in_text(said) for a in gaps):
        return said
    return "; ".join(a.query for a in gaps)


def _scope(result: Verdict, topic: str) -> tuple[Literal["focused", "broad"], list[str]]:
    """'broad' stands only with at least two real sub-topics to hand to researchers (and
    never when the model was not asked)."""
    if not isinstance(result, Reflection):
        return "focused", []
    subtopics = [s for s in result.subtopics if not is_junk_subtopic(s, topic)]
    broad = result.scope == "broad" and len({normalise(s) for s in subtopics}) >= 2
    return ("broad" if broad else "focused"), subtopics
