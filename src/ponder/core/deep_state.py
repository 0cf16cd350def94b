"""State of the deep pipeline (clarify → brief → supervisor ⇄ researchers → report)."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from ponder.core.sources import Source, merge_sources
from ponder.core.state import Allowance, QuestionAspects, ReflectionState
from ponder.core.stats import merge_stats


class ResearcherResult(TypedDict):
    """What one researcher hands back; its numbers are local until the supervisor merges."""

    topic: str
    summary: str
    sources: list[Source]
    error: str


class Note(TypedDict):
    """A researched sub-topic with its summary in the run's shared numbering."""

    topic: str
    summary: str
    error: str


class DeepInput(TypedDict, total=False):
    """What the hand-off carries: the topic and what the loop already learned."""

    topic: str
    sources: list[Source]
    running_summary: str
    reflection: ReflectionState | None
    aspects: QuestionAspects  # the question's parts, when the loop found them already
    spent_before: dict[str, Any]  # what the turn spent in the loop: the budgets count it too


class DeepOutput(TypedDict):
    report: str
    running_summary: str
    sources: list[Source]
    cited_sources: list[Source]
    citations: list[dict[str, Any]]
    stats: dict[str, Any]


class DeepState(TypedDict, total=False):
    topic: str
    running_summary: str  # the loop's notes on entry; all researchers' notes at the end
    reflection: ReflectionState | None
    aspects: QuestionAspects
    sources: Annotated[list[Source], merge_sources]
    conversation: Annotated[list[str], operator.add]  # each question asked, each answer
    pending_question: str
    clarifications: int  # questions asked so far, at most MAX_QUESTIONS
    brief: str
    supervisor_round: int
    supervisor_started: float  # when its first round began (time.time()): its pace so far
    seconds_before: float  # the turn's working seconds before the supervisor's first round
    spent_before: dict[str, Any]  # the turn's statistics in the loop, before the hand-off
    allowance: Allowance | None  # what each researcher of this round may spend
    assigned: Annotated[list[str], operator.add]
    queued: list[str]  # sub-topics waiting for a free researcher slot
    dispatch: list[str]  # sub-topics sent to researchers this round
    research_complete: bool
    researcher_results: Annotated[list[ResearcherResult], operator.add]
    merged_results: int
    notes: Annotated[list[Note], operator.add]
    report: str
    cited_sources: list[Source]
    citations: list[dict[str, Any]]
    stats: Annotated[dict[str, Any], merge_stats]
    messages: Annotated[list[AnyMessage], add_messages]  # as in LoopState


MAX_QUESTIONS = 2  # clarifying questions one run may ask


def conversation_text(state: DeepState) -> str:
    """The clarifying questions and answers so far, one per line, for a prompt."""
    turns = state.get("conversation", [])
    return "\n".join(turns) + ("\n" if turns else "")


class ResearcherTask(TypedDict):
    """The payload of one ``Send`` to a researcher."""

    topic: str
    brief: str
    sources: list[Source]
    allowance: Allowance | None
