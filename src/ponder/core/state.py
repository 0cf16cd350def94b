"""Graph state: input, internal and output schemas, and the reducers that accumulate.

What accumulates (sources, queries run, stats) has a reducer; what is rewritten each round
(the running summary, this round's findings, the last reflection) is plainly replaced.
State holds plain dicts so checkpoints stay portable.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict  # pydantic (Studio schemas) needs it on 3.11

from ponder.core.sources import Source, merge_sources
from ponder.core.stats import merge_stats


def graph_count(value: Any, spent: int) -> int:
    """A counter the graph keeps (rounds, supervisor rounds, questions), as it writes it: a
    whole number from 0. Anything else was written from outside the graph (a caller setting
    the state of a served thread) and reads as ``spent``, all of it used: it ends that work
    rather than extend it. A count the graph wrote stays exact."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return spent


class Finding(TypedDict):
    """One passage read this round, already numbered by its source."""

    number: int
    query: str
    title: str
    url: str
    text: str


class ReflectionState(TypedDict):
    is_sufficient: bool
    knowledge_gap: str
    follow_up_queries: list[str]
    scope: Literal["focused", "broad"]
    subtopics: list[str]


class AspectRecord(TypedDict):
    """One part of a joined question, as ``services/research/aspects`` found it."""

    text: str  # the part as asked
    query: str  # what is searched for it
    terms: list[str]  # stems of its distinctive words


class QuestionAspects(TypedDict):
    """The parts of the question being researched, found once per question (by
    ``generate_query``) and carried, so every node that needs them reads the same ones.
    ``question`` is the one they are of: a follow-up on the thread, or a researcher's
    sub-topic, has its own."""

    question: str
    aspects: list[AspectRecord]


class ResearchInput(TypedDict, total=False):
    """What a caller gives: the topic, or (chat clients) messages whose last is the question."""

    topic: str
    messages: Annotated[list[AnyMessage], add_messages]


class Allowance(TypedDict):
    """What one researcher may spend of the run's budgets: seconds of its own, tokens
    (None: no such budget). :func:`ponder.services.research.budget.researchers_room`."""

    seconds: float | None
    tokens: int | None


class ResearcherInput(TypedDict, total=False):
    """A researcher's input inside the deep pipeline: its sub-topic, the brief, the sources,
    and what it may spend of the run's budgets."""

    topic: str
    brief: str
    sources: list[Source]
    allowance: Allowance | None


class ResearchOutput(TypedDict):
    """What a caller gets back."""

    messages: Annotated[list[AnyMessage], add_messages]  # the report as an AI message, in chat
    report: str
    running_summary: str
    sources: list[Source]
    cited_sources: list[Source]  # the report's Sources section, in its numbering
    citations: list[dict[str, Any]]  # each [n]: its sentence, source and the span it rests on
    stats: dict[str, Any]


class LoopState(TypedDict, total=False):
    topic: str
    brief: str  # context from the deep pipeline when the loop runs as a researcher
    queries: list[str]  # this round's queries
    queries_run: Annotated[list[str], operator.add]
    sources: Annotated[list[Source], merge_sources]
    round_findings: list[Finding]
    aspects: QuestionAspects  # the question's parts, for every round and the report
    summarized: Annotated[list[str], operator.add]  # digests of passages the model was shown
    turn_start: int  # in a chat thread: where this question's entries of `summarized` begin
    research_loop_count: int
    running_summary: str
    reflection: ReflectionState | None
    handoff: Literal["none", "broad", "deep_mode"]
    report: str
    cited_sources: list[Source]
    citations: list[dict[str, Any]]
    stats: Annotated[dict[str, Any], merge_stats]
    turn_stats: dict[str, Any]  # the thread's stats as this turn began: its budgets count its own
    spent_before: dict[str, Any]  # what this turn spent before it was handed to deep research
    allowance: Allowance | None  # a researcher's: what it may spend of the run's budgets
    # The checked report as a chat message, when the draft streamed to LangGraph's
    # ``messages`` mode was not the report (discarded, or replaced by an extractive one),
    # and always when the run came as chat messages (``chat``).
    messages: Annotated[list[AnyMessage], add_messages]
    chat: bool
