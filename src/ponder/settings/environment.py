"""The process environment: read here, by the edges (``api/``, ``interfaces/``), and passed down.

Nothing in ponder changes it, except OpenMP's wait policy when unset
(:func:`openmp_waits_passively`, which says why).

Three kinds of value live there:

- **A run's settings**: ``PONDER_<FIELD>`` for each
  :class:`~ponder.settings.configuration.Configuration` field, and Ollama's ``OLLAMA_HOST``
  (:func:`field_values`, :func:`ollama_host`). Configuration puts them between a run's own
  values and the defaults.
- **The machine's settings** (:class:`~ponder.settings.machine.Machine`): where files go,
  which database and server, this machine's name, who may call its MCP server.
- **Keys and tokens** (:mod:`ponder.settings.keys`), never settings.

The last two are read once where a request comes in — a call of the Python API, a command,
a server's start, a run of a graph that LangGraph serves — as one :class:`Environment`,
and passed down from there: nothing below the edges asks the environment again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from pydantic.fields import FieldInfo

from ponder.core.errors import ConfigurationError
from ponder.settings.keys import Secret, Secrets
from ponder.settings.machine import Machine
from ponder.settings.paths import IndexRole, cache_folder, data_folder, index_folder, index_role

__all__ = ["Environment", "Machine", "Secret", "machine", "read_environment", "secret"]

PREFIX = "PONDER_"
# Lists of paths are split like PATH; other lists (model names hold ':') on commas. A search
# backend's own field says it holds paths itself (json_schema_extra={"paths": True}).
PATH_LISTS = ("docs", "docs_roots", "library")
# Variables not named PONDER_<FIELD> that set a field: Ollama's own (:func:`ollama_host`).
ENV_ALIASES = {"OLLAMA_HOST": "ollama_base_url"}


@dataclass(frozen=True)
class Environment:
    """The machine's settings and the keys, as an edge read them: passed down, never
    stored with a run (nor in LangGraph's checkpoints)."""

    machine: Machine
    secrets: Secrets

    @property
    def data_folder(self) -> Path:
        """Checkpoints and run history (created where it is first used)."""
        return data_folder(self.machine)

    @property
    def cache_folder(self) -> Path:
        """Search and page cache, local indexes (created where it is first used)."""
        return cache_folder(self.machine)

    @property
    def index_folder(self) -> Path:
        """Where the document indexes are: the cache folder, or a shared one."""
        return index_folder(self.machine)

    @property
    def index_role(self) -> IndexRole:
        return index_role(self.machine)

    def secret(self, name: Secret) -> str | None:
        return self.secrets.get(name)


def read_environment(environ: Mapping[str, str] | None = None) -> Environment:
    """What the environment says now about the machine and the keys (tests change it
    between calls, so an edge reads it for each request, not once per process)."""
    env = _environ(environ)
    keys = {name: value for name in get_args(Secret) if (value := secret(name, env))}
    return Environment(machine(env), Secrets(keys))


def machine(environ: Mapping[str, str] | None = None) -> Machine:
    """The machine's settings as the environment says now (tests change it between calls)."""
    values = field_values(Machine.model_fields, environ)
    try:
        return Machine(**values)
    except ValueError as exc:
        raise ConfigurationError(f"Invalid environment — {exc}") from None


def secret(name: Secret, environ: Mapping[str, str] | None = None) -> str | None:
    """A key or token, stripped; None when it is unset or blank."""
    return (_environ(environ).get(name) or "").strip() or None


def ollama_host(environ: Mapping[str, str] | None = None) -> str | None:
    """``OLLAMA_HOST``, which is Ollama's own: one host, read as its clients read it.

    The ollama package parses it as it is imported and fails on a list of hosts. ponder
    does not rewrite it (that would change it for everything else in the process, and for
    every program ponder starts): a list is refused, naming the setting that takes one.
    """
    value = _environ(environ).get("OLLAMA_HOST", "").strip()
    if "," in value:
        raise ConfigurationError(
            f"OLLAMA_HOST holds several hosts ({value}), which the ollama package cannot "
            "read — set them in PONDER_OLLAMA_BASE_URL (or --ollama-url) instead, and "
            "leave OLLAMA_HOST unset or one host."
        )
    return value or None


def openmp_waits_passively() -> None:
    """The one value ponder writes to the environment, and only when it is unset.

    OpenMP reads its wait policy from the environment alone, once, as its runtime loads:
    call this before loading an engine that uses it (the in-process embedder). Threads
    that sleep while they wait leave the cores to Ollama and the others; spinning ones
    made e5's tests take twice the CPU and up to three times as long on a busy machine.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def field_values(
    fields: Mapping[str, FieldInfo], environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The values ``PONDER_<FIELD>`` sets for these fields; blank ones are unset.

    A list is comma-separated (paths: like PATH) or JSON; ``mcp_servers`` is JSON, since
    it holds objects. What does not parse is passed on as it is, for validation to name.
    """
    env = _environ(environ)
    values: dict[str, Any] = {}
    for name, field in fields.items():
        raw = env.get(f"{PREFIX}{name.upper()}")
        if raw is None or raw == "":
            continue
        if name == "mcp_servers":
            values[name] = _parse_json(raw)
        elif field.annotation is not None and "list" in str(field.annotation):
            paths = name in PATH_LISTS or _holds_paths(field)
            values[name] = _parse_list(raw, os.pathsep if paths else ",")
        else:
            values[name] = raw
    return values


def _holds_paths(field: Any) -> bool:
    extra = field.json_schema_extra
    return isinstance(extra, dict) and extra.get("paths") is True


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _parse_json(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw  # left to validation, which names the field


def _parse_list(raw: str, separator: str) -> list[str]:
    if raw.lstrip().startswith("["):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            return [str(item) for item in parsed]
    parts = raw.split(separator)
    return (
        [p for p in parts if p]
        if separator == os.pathsep
        else [p.strip() for p in parts if p.strip()]
    )
