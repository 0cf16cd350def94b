"""Settings: what a shared server (LangGraph Server, ``ponder mcp``, ``ponder ui``) lets
its callers do — which folders, backends and models, and how much of each cost."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, field_validator

from ponder.settings import search_backends
from ponder.settings.paths import split_path_list, usable_paths
from ponder.settings.research_loop import seconds_of
from ponder.settings.settable import Operator


def _ceiling(field: str, cap: int) -> Any:
    """An operator's ceiling on a caller's ``field``, whose hard cap is ``cap``."""
    return Field(
        cap, ge=1, le=cap, description=f"On a shared server: the highest {field} a caller may ask."
    )


class Sharing(BaseModel):
    """What a shared server (LangGraph Server, ``ponder mcp``, ``ponder ui``) lets its
    callers do: which folders, backends and models, and how much of each cost."""

    docs_roots: Operator[list[str]] = Field(
        default_factory=list,
        description="On a shared server: the folders a caller's docs must lie in (after ~, .. "
        "and symlinks are resolved). Unset: the operator's own docs (PONDER_DOCS).",
    )
    docs_hidden_and_symlinks: Operator[bool] = Field(
        False,
        description="Also index hidden files and folders (names starting with '.') and "
        "symlinks that lead out of a document folder. Off: they are skipped, and a caller "
        "may not name them.",
    )
    caller_searches: Operator[list[search_backends.SearchName] | None] = Field(
        None,
        description="On a shared server: the search backends a caller may choose. Unset: the "
        "operator's own search, plus local when there are document roots.",
    )
    caller_models: Operator[list[str]] = Field(
        default_factory=list,
        description="On a shared server: models a caller may choose for model and "
        "report_model ('*': any). Empty: the operator's models are pinned.",
    )
    # The most a caller may choose of each cost (ponder.settings.ceilings); unset: the
    # field's hard cap.
    caller_max_loops: Operator[int] = _ceiling("max_loops", 20)
    caller_queries_per_round: Operator[int] = _ceiling("queries_per_round", 8)
    caller_results_per_query: Operator[int] = _ceiling("results_per_query", 20)
    caller_max_concurrent_researchers: Operator[int] = _ceiling("max_concurrent_researchers", 10)
    caller_max_supervisor_rounds: Operator[int] = _ceiling("max_supervisor_rounds", 10)
    caller_num_predict: Operator[int] = _ceiling("num_predict", 65_536)
    caller_summary_tokens: Operator[int] = _ceiling("summary_tokens", 8000)
    caller_evidence_tokens: Operator[int] = _ceiling("evidence_tokens", 32_000)
    caller_min_findings_to_stop: Operator[int] = _ceiling("min_findings_to_stop", 20)
    caller_min_sources_to_stop: Operator[int] = _ceiling("min_sources_to_stop", 20)
    caller_runs: Operator[int] = Field(
        3,
        ge=1,
        le=1000,
        description="On a shared server: how many runs one caller may have running or queued "
        "at once; one more is refused until one ends.",
    )

    caller_time_budget: Annotated[Operator[float | None], BeforeValidator(seconds_of)] = Field(
        None,
        ge=30,
        le=86_400,
        description="On a shared server: the longest time_budget a caller may ask (90s, 5m, "
        "1h); a caller who asks none gets this one. Unset: no ceiling.",
    )
    caller_token_budget: Operator[int | None] = Field(
        None,
        ge=2000,
        le=10_000_000,
        description="On a shared server: the largest token_budget a caller may ask; a caller "
        "who asks none gets this one. Unset: no ceiling.",
    )
    caller_watches: Operator[int] = Field(
        5,
        ge=0,
        le=1000,
        description="On a shared server: how many watched questions one caller may keep.",
    )
    caller_watch_every: Annotated[Operator[float], BeforeValidator(seconds_of)] = Field(
        3600.0,
        ge=60,
        le=30 * 86_400,
        description="On a shared server: the shortest interval between two runs of a "
        "caller's watch (30m, 1h, 1d).",
    )

    @field_validator("docs_roots", mode="before")
    @classmethod
    def _roots_as_list(cls, value: Any) -> Any:
        return split_path_list(value)

    @field_validator("docs_roots")
    @classmethod
    def _usable_roots(cls, value: list[str]) -> list[str]:
        return usable_paths(value)
