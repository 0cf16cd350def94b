"""Settings: when a topic goes to the deep pipeline, how that pipeline runs, and how the
report is written."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from ponder.settings.choices import Mode
from ponder.settings.flag import Flag
from ponder.settings.settable import Caller


class Reporting(BaseModel):
    """When a topic goes to the deep pipeline, how that pipeline runs, and how the report
    is written."""

    mode: Annotated[Caller[Mode], Flag("--mode", "loop, deep, or auto (default)")] = Field(
        "auto",
        description="auto: loop, hand broad topics to the deep pipeline; loop: never hand "
        "off; deep: hand off at once.",
    )
    allow_clarification: Annotated[
        Caller[bool],
        Flag("--no-clarify", "never stop to ask a clarifying question", action="false"),
    ] = Field(True, description="Let the deep pipeline ask one clarifying question.")
    max_concurrent_researchers: Caller[int] = Field(
        3, ge=1, le=10, description="Researchers that run at once in the deep pipeline."
    )
    max_supervisor_rounds: Caller[int] = Field(
        3, ge=1, le=10, description="Maximum supervisor rounds in the deep pipeline."
    )
    strict_citations: Caller[bool] = Field(
        False,
        description="Drop the report's sentences that no source ponder read supports, "
        "instead of marking them [unsupported].",
    )
    summary_tokens: Caller[int] = Field(
        700, ge=100, le=8000, description="Length budget of the running summary, in tokens."
    )
    evidence_tokens: Caller[int] = Field(
        1200,
        ge=200,
        le=32000,
        description="Source text shown to the model per round, in tokens: the most relevant "
        "passages of the round's sources are chosen to fill it.",
    )
