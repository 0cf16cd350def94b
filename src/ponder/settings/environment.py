"""The process environment: read here and nowhere else in ponder.

Nothing in ponder changes it, except OpenMP's wait policy when unset
(:func:`openmp_waits_passively`, which says why).

Three kinds of value live there:

- **A run's settings**: ``PONDER_<FIELD>`` for each
  :class:`~ponder.settings.configuration.Configuration` field, and Ollama's ``OLLAMA_HOST``
  (:func:`field_values`, :func:`ollama_host`). Configuration puts them between a run's own
  values and the defaults.
- **The machine's settings** (:class:`Machine`): where files go, which database and server,
  this machine's name, who may call its MCP server. They belong to the process, never to
  a run: a run's settings are stored with it and resumed from anywhere (another machine
  sharing the database resumes it with its own folders and its own name), and a caller of
  a shared server sends settings, never these.
- **Keys and tokens** (:func:`secret`). Never settings either, since settings are stored
  with every run, shown by Studio and printed with ``--json``: a key must be none of those.
  ``TAVILY_API_KEY`` and ``OPENAI_API_KEY`` are the names their services document; the
  tokens are the ones an operator puts in a server's environment.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.fields import FieldInfo

from ponder.core.errors import ConfigurationError
from ponder.settings.flag import Flag

PREFIX = "PONDER_"
# Lists of paths are split like PATH; other lists (model names hold ':') on commas.
PATH_LISTS = ("docs", "docs_roots")

Secret = Literal[
    "TAVILY_API_KEY",  # search=tavily
    "OPENAI_API_KEY",  # provider=openai, sent only to openai_base_url
    "PONDER_SERVER_TOKEN",  # what `--server` sends as its bearer token
    "PONDER_SERVER_TOKENS",  # a LangGraph Server's users and their tokens
    "PONDER_MCP_TOKEN",  # the token `ponder mcp --http` requires (one, shared)
    "PONDER_MCP_TOKENS",  # `ponder mcp --http`'s users and their tokens (user=token,...)
    "PONDER_UI_TOKEN",  # the operator's token for `ponder ui` (required off loopback)
    "PONDER_UI_TOKENS",  # `ponder ui`'s other users and their tokens (user=token,...)
]


class Machine(BaseModel):
    """The settings of the machine and process that run ponder, from ``PONDER_<FIELD>``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data_dir: str | None = Field(
        None, description="Checkpoints and run history. Unset: the user's data folder."
    )
    cache_dir: str | None = Field(
        None, description="Search and page cache, local indexes. Unset: the user's cache folder."
    )
    database_url: str | None = Field(
        None,
        repr=False,  # it may hold a password
        description="PostgreSQL for checkpoints and run history, shared by several machines. "
        "Unset: SQLite in the data folder.",
    )
    host_id: str | None = Field(
        None,
        description="This machine's name in the run history. Unset: the host name (set it in "
        "containers, which get a new one at every start).",
    )
    server: Annotated[
        str | None,
        Flag(
            "--server",
            "run on this LangGraph Server (also PONDER_SERVER); the report is saved here",
            metavar="URL",
        ),
    ] = Field(None, description="The LangGraph Server to run research on. Unset: this machine.")
    mcp_allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host headers `ponder mcp --http` accepts off loopback (host:port, "
        "host:* for any port). Empty: the MCP SDK's loopback checks only.",
    )
    model_dir: str | None = Field(
        None, description="Where the test rig keeps its model files. Unset: the cache folder."
    )

    @field_validator("data_dir", "cache_dir", "database_url", "host_id", "server", "model_dir")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return (value or "").strip() or None


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
            values[name] = _parse_list(raw, os.pathsep if name in PATH_LISTS else ",")
        else:
            values[name] = raw
    return values


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
