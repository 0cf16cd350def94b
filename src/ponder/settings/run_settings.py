"""A run's settings, resolved from where LangGraph puts them.

Per-run values come from LangGraph's runtime context (the Python API) or
``RunnableConfig["configurable"]`` (Studio, LangGraph Server); the environment and the
defaults fill the rest. On a graph served to others (marked with ``SERVED_KEY``) the
per-run values are a caller's, and only what the operator allows is taken
(:mod:`ponder.settings.callers`); a ``recursion_limit`` beyond what any run needs is refused there
too, so the graph holds the line even with no authentication handler in front of it.

The machine's settings and the keys come with the run too: a run that ponder drives
(:mod:`ponder.api`) carries the :class:`~ponder.settings.environment.Environment` its edge
read in a :class:`RunContext`, LangGraph's runtime context, which is never checkpointed. A
run that LangGraph itself starts (LangGraph Server, Studio, another program's graph) has no
edge of ponder's before its first node, so :func:`run_environment` reads it there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ponder.core.errors import CallerRefusedError
from ponder.settings.callers import served_configuration
from ponder.settings.ceilings import MOST_SUPERSTEPS, above_recursion_ceiling
from ponder.settings.configuration import Configuration
from ponder.settings.environment import Environment, read_environment

# Present in ``configurable`` of the graphs a server serves (graphs/studio.py). Only its
# presence counts: a caller's config is merged over the graph's, so it can add this key or
# change its value, never remove it.
SERVED_KEY = "__ponder_served__"
# Where LangGraph keeps a run's Runtime (with its context) in ``configurable``.
_RUNTIME_KEY = "__pregel_runtime"


@dataclass(frozen=True)
class RunContext:
    """LangGraph's runtime context of a run ponder drives: its settings, and the machine's
    settings and keys its edge read (kept in memory only, never in a checkpoint)."""

    settings: Configuration
    environment: Environment


def run_environment(config: Mapping[str, Any] | None = None) -> Environment:
    """The machine's settings and keys for a node: those the run carries, else (a graph
    LangGraph runs) the environment as it is now, read at the run's first ponder code."""
    context = _runtime_context(dict((config or {}).get("configurable") or {}))
    if isinstance(context, RunContext):
        return context.environment
    return read_environment()


def _runtime_context(configurable: Mapping[str, Any]) -> Any:
    return getattr(configurable.get(_RUNTIME_KEY), "context", None)


def run_configuration(
    config: Mapping[str, Any] | None = None, context: Any = None
) -> Configuration:
    """Resolve a node's configuration: configurable > context > environment > default.

    ``context`` defaults to the run's LangGraph runtime context. LangGraph and Studio put
    their own keys (thread_id, checkpoint_ns, …) in ``configurable``; only ponder's field
    names are read from it. On a served graph the per-run values are a caller's: they
    are checked against what the operator allows, and refused if they overstep it.
    """
    configurable = dict((config or {}).get("configurable") or {})
    if context is None:
        context = _runtime_context(configurable)
    if isinstance(context, RunContext):
        context = context.settings
    per_run: dict[str, Any] = {}
    if isinstance(context, BaseModel):
        per_run.update(context.model_dump(exclude_unset=True))
    elif isinstance(context, Mapping):
        per_run.update(context)
    per_run.update(configurable)
    fields = Configuration.model_fields
    per_run = {k: v for k, v in per_run.items() if k in fields and v is not None}
    if SERVED_KEY in configurable:
        refused = above_recursion_ceiling((config or {}).get("recursion_limit"), MOST_SUPERSTEPS)
        if refused:
            raise CallerRefusedError(f"This server refused the run: {refused}.")
        return served_configuration(per_run)
    return Configuration.from_values(per_run)
