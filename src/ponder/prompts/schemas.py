"""The structured answers ponder asks a model for, one pydantic model each.

Each is sent to the model as a JSON schema (Ollama's ``format``, OpenAI's
``response_format``), so even a tiny model returns valid JSON; the prompt that asks for it
is named in :mod:`ponder.prompts`. Nodes share them from here, and :data:`FIELD_NAMES`
(the words a weak model sometimes writes as content) is derived from them.
"""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import BaseModel, Field, create_model

# A search query or sub-topic is a short phrase; the cap also stops a weak model from
# spending its token budget inside one runaway string.
SearchPhrase = Annotated[str, Field(max_length=120)]
MAX_FINDINGS = 8  # with statements of ≤240 characters, about what summary_tokens holds


class QueryPlan(BaseModel):
    rationale: str = Field(max_length=200)
    queries: list[SearchPhrase]


class Claim(BaseModel):
    statement: str = Field(max_length=240)
    sources: list[int]


class SummaryUpdate(BaseModel):
    findings: list[Claim]


class Verdict(BaseModel):
    is_sufficient: bool
    knowledge_gap: str = Field(max_length=300)
    follow_up_queries: list[SearchPhrase]


class Reflection(Verdict):
    scope: Literal["focused", "broad"]
    subtopics: list[SearchPhrase] = Field(default_factory=list, max_length=4)


class Clarification(BaseModel):
    need_clarification: bool
    question: str = Field(max_length=300)
    verification: str = Field(max_length=300)


class ResearchBrief(BaseModel):
    brief: str = Field(max_length=1500)


class SupervisorDecision(BaseModel):
    reflection: str = Field(max_length=300)
    subtopics: list[SearchPhrase] = Field(default_factory=list, max_length=6)
    research_complete: bool


ANSWERS: tuple[type[BaseModel], ...] = (
    QueryPlan,
    Claim,
    SummaryUpdate,
    Reflection,
    Clarification,
    ResearchBrief,
    SupervisorDecision,
)
# Every field name of the answers above, in order ("knowledge_gap", "follow_up_queries", …).
FIELD_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(name for answer in ANSWERS for name in answer.model_fields)
)


@functools.cache
def query_plan_schema(n: int) -> type[QueryPlan]:
    """QueryPlan with 1..n queries, so constrained decoding cannot exceed the budget."""
    return create_model(
        "QueryPlan",
        __base__=QueryPlan,
        queries=(list[SearchPhrase], Field(min_length=1, max_length=n)),
    )


@functools.cache
def reflection_schema(n: int, scope: bool = True) -> type[Verdict]:
    """Reflection with 1..n follow-up queries; without ``scope``, only the verdict (no
    scope or sub-topics: a run that cannot hand off has no use for them, and a model would
    spend tokens writing them). Both are titled "Reflection"."""
    return create_model(
        "Reflection",
        __base__=Reflection if scope else Verdict,
        follow_up_queries=(list[SearchPhrase], Field(min_length=1, max_length=n)),
    )


def summary_schema(numbers: list[int]) -> type[SummaryUpdate]:
    """SummaryUpdate whose claims may only cite ``numbers``."""
    allowed = Literal[tuple(sorted(set(numbers)))]  # type: ignore[valid-type]
    claim = create_model(
        "Claim",
        __base__=Claim,
        sources=(list[allowed], Field(min_length=1, max_length=3)),  # type: ignore[valid-type]
    )
    return create_model(
        "SummaryUpdate",
        __base__=SummaryUpdate,
        findings=(list[claim], Field(min_length=1, max_length=MAX_FINDINGS)),  # type: ignore[valid-type]
    )
