"""Settings: how far the research loop goes, and when it may stop early."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from ponder.settings.flag import Flag
from ponder.settings.settable import Caller


class ResearchLoop(BaseModel):
    """How far the research loop goes, and when it may stop early."""

    max_loops: Annotated[Caller[int], Flag("--loops", "maximum search rounds", metavar="N")] = (
        Field(3, ge=1, le=20, description="Maximum search rounds of the research loop.")
    )
    queries_per_round: Caller[int] = Field(
        3, ge=1, le=8, description="Maximum search queries generated per round."
    )
    results_per_query: Caller[int] = Field(
        5, ge=1, le=20, description="Search results (distinct pages or files) kept per query."
    )
    min_findings_to_stop: Caller[int] = Field(
        3,
        ge=0,
        le=20,
        description="A 'sufficient' verdict ends the loop early only when the summary has at "
        "least this many cited findings about the topic…",
    )
    min_sources_to_stop: Caller[int] = Field(
        2,
        ge=0,
        le=20,
        description="…citing at least this many distinct sources. Otherwise the loop searches "
        "on while max_loops allows.",
    )
