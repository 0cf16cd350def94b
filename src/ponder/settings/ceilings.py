"""Ceilings: the most a caller of a shared server may spend, as its operator sets them.

Every cost a caller chooses has an operator field beside it: ``max_loops`` has
``caller_max_loops`` (``PONDER_CALLER_MAX_LOOPS``), and so on (``CEILINGS``). A caller who
asks for more than a ceiling is refused, with a message naming it, never clamped: a run
that quietly does less than it was asked for reads as a weak result, not as a rule. A
caller who does not choose gets the operator's own value, lowered to the ceiling. Left
unset, a ceiling is the field's hard cap, so it changes nothing.

``caller_runs`` bounds how many runs one caller has running or queued at once; each door
counts them where it keeps them (:class:`RunSlots` in a process that runs them itself).
The operator (the CLI, Python, the UI's operator) is held to none of this, only to the
hard caps of each field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from annotated_types import Le
from pydantic import TypeAdapter, ValidationError

from ponder.core.errors import TooManyRunsError
from ponder.settings.configuration import Configuration
from ponder.settings.research_loop import seconds_of

# Each cost a caller chooses → the operator field that bounds it.
CEILINGS = {
    "max_loops": "caller_max_loops",
    "queries_per_round": "caller_queries_per_round",
    "results_per_query": "caller_results_per_query",
    "max_concurrent_researchers": "caller_max_concurrent_researchers",
    "max_supervisor_rounds": "caller_max_supervisor_rounds",
    # Tokens a caller's run may have the model read and write, and how much a caller may
    # demand before "sufficient" ends the loop (more is more rounds).
    "num_predict": "caller_num_predict",
    "summary_tokens": "caller_summary_tokens",
    "evidence_tokens": "caller_evidence_tokens",
    "min_findings_to_stop": "caller_min_findings_to_stop",
    "min_sources_to_stop": "caller_min_sources_to_stop",
}
# Budgets, whose ceiling is unset (no ceiling) until the operator sets one; a caller who
# asks no budget gets the ceiling as theirs.
BUDGET_CEILINGS = {"time_budget": "caller_time_budget", "token_budget": "caller_token_budget"}
RUNS_ENV = "PONDER_CALLER_RUNS"
_INT = TypeAdapter(int)


def env_name(field: str) -> str:
    return f"PONDER_{field.upper()}"


def hard_cap(field: str) -> int:
    """The upper bound a Configuration field allows (its ``le=`` constraint)."""
    for rule in Configuration.model_fields[field].metadata:
        if isinstance(rule, Le):
            return int(rule.le)  # type: ignore[call-overload]
    raise ValueError(f"Configuration.{field} has no upper bound")


def above_ceiling(name: str, value: Any, operator: Configuration) -> str | None:
    """Why a caller's value is refused (above the operator's ceiling), or None.

    A value that is no valid setting at all (beyond the hard cap, not a number) is left to
    validation, which names the field and its bounds.
    """
    if name in BUDGET_CEILINGS:
        return _above_budget(name, value, operator)
    ceiling_field = CEILINGS.get(name)
    if ceiling_field is None:
        return None
    try:
        number = _INT.validate_python(value)
    except ValidationError:
        return None
    ceiling = int(getattr(operator, ceiling_field))
    if number <= ceiling or number > hard_cap(name):
        return None
    return (
        f"{name}={number} is above this server's ceiling of {ceiling} (its operator sets "
        f"{env_name(ceiling_field)}); choose {ceiling} or less"
    )


def _above_budget(name: str, value: Any, operator: Configuration) -> str | None:
    ceiling = getattr(operator, BUDGET_CEILINGS[name])
    try:
        asked = float(seconds_of(value)) if value is not None else None
    except (TypeError, ValueError):
        return None  # validation names the field and what it takes
    if ceiling is None or asked is None or asked <= ceiling:
        return None
    unit = " seconds" if name == "time_budget" else " tokens"
    return (
        f"{name}={asked:g}{unit} is above this server's ceiling of {ceiling:g}{unit} (its "
        f"operator sets {env_name(BUDGET_CEILINGS[name])}); ask {ceiling:g} or less"
    )


def lowered_to_ceilings(options: Mapping[str, Any], operator: Configuration) -> dict[str, Any]:
    """A caller's options, plus the ceiling for each cost it left to the operator where the
    operator's own value is higher (the operator's CLI runs keep that value), and the
    budget ceilings as the budgets of a caller who asked none."""
    lowered = dict(options)
    for name, ceiling_field in CEILINGS.items():
        ceiling = getattr(operator, ceiling_field)
        if name not in lowered and getattr(operator, name) > ceiling:
            lowered[name] = ceiling
    for name, ceiling_field in BUDGET_CEILINGS.items():
        ceiling, own = getattr(operator, ceiling_field), getattr(operator, name)
        if ceiling is not None and lowered.get(name) is None:
            lowered[name] = ceiling if own is None else min(own, ceiling)
    return lowered


def recursion_ceiling(operator: Configuration) -> int:
    """The most LangGraph supersteps a caller's run may ask for: what a run at the
    ceilings needs (a higher ``recursion_limit`` would only let a run go on longer)."""
    at_ceilings = Configuration.model_construct(
        max_loops=operator.caller_max_loops,
        max_supervisor_rounds=operator.caller_max_supervisor_rounds,
    )
    return at_ceilings.recursion_limit


# What a run at every hard cap needs: the served graphs' own recursion_limit.
MOST_SUPERSTEPS = recursion_ceiling(Configuration.model_construct())


def above_recursion_ceiling(limit: Any, ceiling: int) -> str | None:
    """Why a run's ``recursion_limit`` is refused, or None (a lower one costs only the
    caller's own run)."""
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= ceiling:
        return None
    return (
        f"recursion_limit={limit} is more than a run here may take ({ceiling} supersteps, "
        "what a run at this server's ceilings needs) — leave it out: ponder sets it"
    )


def too_many_runs(live: int, limit: int) -> TooManyRunsError:
    return TooManyRunsError(
        f"You already have {live} run{'s' if live != 1 else ''} running or queued here, as "
        f"many as this server allows one caller (its operator sets {RUNS_ENV}={limit}) — "
        "wait for one to finish, or stop one, then try again."
    )


class RunSlots:
    """The runs each caller has live in this process, held to a limit per caller."""

    def __init__(self) -> None:
        self._live: Counter[str] = Counter()

    def live(self, caller: str) -> int:
        return self._live[caller]

    @contextmanager
    def hold(self, caller: str, limit: int | None) -> Iterator[None]:
        """One slot for the duration of a run; refused when the caller has ``limit``
        already (``None``: the operator, held to nothing)."""
        if limit is not None and self._live[caller] >= limit:
            raise too_many_runs(self._live[caller], limit)
        self._live[caller] += 1
        try:
            yield
        finally:
            self._live[caller] -= 1
            if not self._live[caller]:
                del self._live[caller]
