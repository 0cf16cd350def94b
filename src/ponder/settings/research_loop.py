"""Settings: how far the research loop goes, and when it may stop early."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from ponder.settings.flag import Flag
from ponder.settings.settable import Caller

_NUMBER = r"(\d+(?:\.\d+)?)"
_DURATION = re.compile("".join(f"(?:{_NUMBER}{unit})?" for unit in ("w", "d", "h", "m", "s?")))
_UNITS = (7 * 86400, 86400, 3600, 60, 1)


def seconds_of(value: Any) -> Any:
    """A duration as seconds: a number, or text with units (90, 90s, 5m, 1h30m, 1d, 2w)."""
    if not isinstance(value, str) or not value.strip():
        return value
    found = _DURATION.fullmatch(value.strip().lower())
    if found is None or not any(found.groups()):
        raise ValueError(f"{value!r} is not a duration: give seconds, or 90s, 5m, 1h30m, 1d")
    return sum(float(part or 0) * unit for part, unit in zip(found.groups(), _UNITS, strict=True))


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
    time_budget: Annotated[
        Caller[float | None],
        BeforeValidator(seconds_of),
        Flag(
            "--time-budget",
            "research only as long as leaves time for the report within this (90s, 5m, 1h)",
            metavar="DURATION",
        ),
    ] = Field(
        None,
        ge=30,
        le=86_400,
        description="Seconds the research loop may take, its report included (90s, 5m, "
        "1h): it plans its rounds to leave the report its time, from this run's own "
        "model speed. Unset: only max_loops bounds it.",
    )
    token_budget: Annotated[
        Caller[int | None],
        Flag(
            "--token-budget",
            "research only as long as leaves tokens for the report within this many",
            metavar="N",
            parse="int",
        ),
    ] = Field(
        None,
        ge=2000,
        le=10_000_000,
        description="Tokens (read and written, as the model server counts them) the "
        "research loop may spend, its report included. Unset: only max_loops bounds it.",
    )
