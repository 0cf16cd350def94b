"""One configuration model; precedence is per-run > environment > default.

Per-run values are keyword arguments (the Python API, the CLI's flags) or what LangGraph
carries for a run (:mod:`ponder.settings.run_settings` reads them). Environment variables are
``PONDER_<FIELD>`` plus Ollama's own ``OLLAMA_HOST``, read by :mod:`ponder.settings.environment`
(where the machine's own settings and the keys are too: never a run's). An environment
value never overrides an explicit per-run value, even one that equals the default.

The fields come in groups, each its own module: :mod:`.model_access`, :mod:`.research_loop`,
:mod:`.searching`, :mod:`.reporting` and :mod:`.sharing`. Each field is ``Caller[...]`` or
``Operator[...]`` (:mod:`ponder.settings.settable`): on a graph served to others the per-run
values are a caller's, and only what the operator allows is taken
(:mod:`ponder.settings.callers`). docs/configuration.md is generated from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ponder.core.errors import ConfigurationError
from ponder.settings import search_backends
from ponder.settings.environment import field_values, ollama_host
from ponder.settings.model_access import ModelAccess
from ponder.settings.reporting import Reporting
from ponder.settings.research_loop import ResearchLoop
from ponder.settings.searching import Searching
from ponder.settings.sharing import Sharing

# Each search backend's own fields, from its folder (ponder.settings.backend_settings).
BACKENDS: tuple[type[BaseModel], ...] = search_backends.setting_groups()

# The groups, in the order their fields are listed (Studio's form, the docs): Python
# gathers a class's fields from its last base to its first.
GROUPS: tuple[type[BaseModel], ...] = (
    ModelAccess,
    ResearchLoop,
    Searching,
    *BACKENDS,
    Reporting,
    Sharing,
)


# The backends' bases are known when it runs, not to a type checker (hence the ignore):
# their code reads their fields through their own model (BackendSettings.of).
class Configuration(
    Sharing,
    Reporting,
    *reversed(BACKENDS),  # type: ignore[misc]
    Searching,
    ResearchLoop,
    ModelAccess,
):
    """Every knob ponder has. Studio shows these fields with their descriptions."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    @property
    def recursion_limit(self) -> int:
        """LangGraph supersteps enough for the configured caps: each round is three steps,
        each supervisor round two, plus the fixed steps around them."""
        return 3 * self.max_loops + 2 * self.max_supervisor_rounds + 14

    @classmethod
    def field_names(cls) -> list[str]:
        return sorted(cls.model_fields)

    @classmethod
    def create(cls, **values: Any) -> Configuration:
        """Validate explicit values (the Python API), filling the rest from env and defaults."""
        unknown = sorted(set(values) - set(cls.model_fields))
        if unknown:
            raise ConfigurationError(
                f"Unknown configuration key(s): {', '.join(unknown)}. "
                f"Valid keys: {', '.join(cls.field_names())}."
            )
        return _build({**environment_values(), **values})

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Configuration:
        """``values`` over the environment and the defaults, already known to be fields
        (a run's per-run values); invalid ones are a ConfigurationError."""
        return _build({**environment_values(), **values})


def _build(values: dict[str, Any]) -> Configuration:
    try:
        return Configuration(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigurationError(f"Invalid configuration — {problems}.") from None


def environment_values(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Configuration values set in the environment (``PONDER_<FIELD>``, ``OLLAMA_HOST``)."""
    values = field_values(Configuration.model_fields, environ)
    host = ollama_host(environ)
    if host and "ollama_base_url" not in values:
        values["ollama_base_url"] = host
    return values
