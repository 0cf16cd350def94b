"""Every setting described once, as data: what docs/configuration.md and the command line's
flags are generated from (``scripts/settings_docs.py``).

Each entry comes from a declaration: a field of :class:`~.configuration.Configuration`
(its group, who may set it, its default and limits, its description, its flag), of
:class:`~.machine.Machine`, or a key of :mod:`.keys`. Nothing here is written by hand.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ponder.settings import search_backends
from ponder.settings.backend_settings import BackendSettings
from ponder.settings.configuration import GROUPS, Configuration
from ponder.settings.environment import ENV_ALIASES, PREFIX
from ponder.settings.flag import Flag, flag_of
from ponder.settings.keys import SECRETS
from ponder.settings.machine import Machine
from ponder.settings.settable import settable_by

Who = Literal["caller", "operator", "machine", "key"]


@dataclass(frozen=True)
class Setting:
    """One setting as a reader needs it."""

    name: str  # the field's name (a key's is its variable)
    who: Who  # who may set it: a caller, the operator, the machine's settings, a key
    environment: tuple[str, ...]  # the variables that set it, the first the usual one
    default: str | None  # shown as code; None: no default (a key)
    limits: str | None  # "1–20", "> 0"
    meaning: str
    flag: Flag | None


@dataclass(frozen=True)
class Group:
    title: str
    about: str
    settings: list[Setting]


def run_settings() -> list[Group]:
    """Configuration's fields, by group, in the order they are declared."""
    groups = []
    for group in GROUPS:
        names = [n for n in Configuration.model_fields if n in group.model_fields]
        fields = [_setting(n, Configuration.model_fields[n], _who(n)) for n in names]
        groups.append(Group(_title(group), _about(group), fields))
    return groups


def backend_rules() -> list[tuple[str, Who, str]]:
    """Each search backend's own setting, who may set it on a shared server, and why, as
    its field says (``json_schema_extra={"why": ...}``): docs/deploy.md's generated rows."""
    from ponder.settings.configuration import BACKENDS

    rules = []
    for group in BACKENDS:
        for name, field in group.model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            why = extra.get("why")
            if not isinstance(why, str) or not why:
                raise ValueError(f"{group.__name__}.{name} says no why (json_schema_extra)")
            rules.append((name, _who(name), why))
    return rules


def machine_settings() -> list[Setting]:
    return [_setting(n, f, "machine") for n, f in Machine.model_fields.items()]


def keys() -> list[Setting]:
    return [Setting(name, "key", (name,), None, None, text, None) for name, text in SECRETS.items()]


def cli_flags(model: type[BaseModel], backends: bool = True) -> dict[str, Flag]:
    """Each flagged field of ``model`` → its flag, completed from the field's type: how its
    value is read (a whole number) and the names it may take (a Literal's). With
    ``backends``, ``{choices}`` in --search's help becomes the registered backends' names;
    the CLI's generated flags keep it, to fill in with those registered when it runs."""
    flags = {}
    for name, field in model.model_fields.items():
        flag = flag_of(field)
        if flag is None:
            continue
        base = _without_none(field.annotation)
        if base is int and flag.parse == "text":
            flag = dataclasses.replace(flag, parse="int")
        if get_origin(base) is Literal:
            flag = dataclasses.replace(flag, choices=tuple(str(a) for a in get_args(base)))
        if flag.parse == "search" and backends:
            names = ", ".join(search_backends.names())
            flag = dataclasses.replace(flag, help=flag.help.format(choices=names))
        flags[name] = flag
    return flags


def _setting(name: str, field: FieldInfo, who: Who) -> Setting:
    variable = f"{PREFIX}{name.upper()}"
    aliases = tuple(alias for alias, field_name in ENV_ALIASES.items() if field_name == name)
    flag = cli_flags(Machine if who == "machine" else Configuration).get(name)
    meaning = field.description or ""
    return Setting(name, who, (variable, *aliases), _default(field), _limits(field), meaning, flag)


def _who(name: str) -> Who:
    who = settable_by(Configuration.model_fields[name])
    if who is None:
        raise ValueError(f"Configuration.{name} says neither Caller[...] nor Operator[...]")
    return who


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "empty"
    value = field.default
    if value is None or value is PydanticUndefined:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _limits(field: FieldInfo) -> str | None:
    low = high = None
    for rule in field.metadata:
        if isinstance(rule, Ge):
            low = _number(rule.ge)
        elif isinstance(rule, Gt):
            low = f"> {_number(rule.gt)}"
        elif isinstance(rule, Le):
            high = _number(rule.le)
    if low and high:
        return f"{low}–{high}"
    if low and low.startswith(">"):
        return low
    return f"≥ {low}" if low else (f"≤ {high}" if high else None)


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def _title(group: type[BaseModel]) -> str:
    """A group's section title: its class name in words (``ResearchLoop`` → Research loop);
    a search backend's: "Search: " and its name as its docstring writes it (SearXNG)."""
    if issubclass(group, BackendSettings):
        return "Search: " + (group.__doc__ or group.__name__).split(":")[0].strip()
    words = "".join(f" {c.lower()}" if c.isupper() else c for c in group.__name__).split()
    return " ".join(words).capitalize()


def _about(group: type[BaseModel]) -> str:
    return " ".join((group.__doc__ or "").split())
