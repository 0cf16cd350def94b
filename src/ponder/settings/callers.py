"""What a caller of a shared server may set, and the checks that hold it to that.

A shared server (the graphs a LangGraph Server serves, ``ponder mcp``) runs for its
operator, whose settings come from the server's environment. A caller chooses only
``Caller`` fields (:mod:`ponder.settings.settable`), within the operator's limits:

- ``search`` among the backends the operator enables (``caller_searches``; unset: the
  operator's own ``search``, each of them when it names several, plus ``local`` when there
  are document roots), one or several of them together;
- ``docs`` inside the operator's document roots (``docs_roots``, else the operator's
  ``docs``), once ``~``, ``..`` and symlinks are resolved on the server, and through no
  hidden file or folder there unless the operator allows them
  (``docs_hidden_and_symlinks``); or inside folders of the caller's own (``own``: the
  collection a user of ``ponder ui`` uploaded), which no other caller is allowed;
- ``zim`` and ``library``, otherwise the operator's alone: the operator's archives and
  libraries, and files inside the caller's ``own`` folders (the Kiwix archives and the
  reference libraries a user of ``ponder ui`` uploaded), never anything else;
- ``model`` and ``report_model``: the operator's, or one of ``caller_models``;
- ``fetch_full_page`` only while the operator keeps ``allow_private_urls`` off (with it on,
  full pages would be read from the operator's private network at a caller's wish);
- each cost (rounds, queries, results, researchers, supervisor rounds) at most the
  operator's ceiling for it (:mod:`ponder.settings.ceilings`); a caller who leaves one unset
  gets the operator's value, lowered to the ceiling.

An ``Operator`` field is refused unless its value is the operator's own: a form that
echoes every field (as a UI may) changes nothing, and anything else is refused, never used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ponder.core.errors import CallerRefusedError
from ponder.settings.ceilings import above_ceiling, lowered_to_ceilings
from ponder.settings.configuration import Configuration
from ponder.settings.environment import ENV_ALIASES, PREFIX
from ponder.settings.own_files import OWN_FILE_FIELDS, hidden_below, holds_archive, own_files
from ponder.settings.paths import path_problem
from ponder.settings.search_backends import parse as search_names
from ponder.settings.settable import settable_by

_MODEL_FIELDS = ("model", "report_model")


def caller_fields() -> list[str]:
    """The fields a caller of a shared server may send."""
    return [n for n, f in Configuration.model_fields.items() if settable_by(f) == "caller"]


def operator_fields() -> list[str]:
    """The fields only the operator sets."""
    return [n for n, f in Configuration.model_fields.items() if settable_by(f) == "operator"]


def operator_configuration() -> Configuration:
    """The operator's settings: the server's environment, then defaults."""
    return Configuration.create()


def document_roots(operator: Configuration) -> list[Path]:
    """The folders (or files) a caller's documents must lie in, resolved."""
    return [Path(p).expanduser().resolve() for p in operator.docs_roots or operator.docs]


def enabled_searches(operator: Configuration, own: Sequence[Path] = ()) -> list[str]:
    """The search backends a caller may choose, alone or together (``own``: folders of
    the caller's own, which make ``local`` one of them as the operator's roots do, and
    ``zim`` when they hold an archive)."""
    if operator.caller_searches is not None:
        return list(operator.caller_searches)
    enabled = list(operator.searches)
    if (document_roots(operator) or own) and "local" not in enabled:
        enabled.append("local")
    if holds_archive(own) and "zim" not in enabled:
        enabled.append("zim")
    return enabled


def refuse_operator_fields(
    values: Mapping[str, Any], names: Mapping[str, str] | None = None
) -> None:
    """Refuse every operator field in ``values``, whatever its value: what a client of a
    server checks before sending (it cannot know the server's own values). ``names`` says
    a field as the user wrote it (a CLI flag)."""
    refused = [name for name in values if name in operator_fields()]
    if refused:
        raise CallerRefusedError(
            "; ".join(_operator_only(name, (names or {}).get(name)) for name in refused)
            + " — drop it, or run locally (without --server / server=) to set it yourself."
        )


def vet(
    values: Mapping[str, Any],
    operator: Configuration | None = None,
    own: Sequence[Path] = (),
) -> dict[str, Any]:
    """A caller's values, checked against what the operator allows; docs come back resolved.
    ``own``: folders this caller may also search (theirs alone, resolved).

    Raises :class:`CallerRefusedError` naming every value it refuses (nothing is used).
    """
    operator = operator or operator_configuration()
    problems: list[str] = []
    vetted: dict[str, Any] = {}
    for name, value in values.items():
        if name not in Configuration.model_fields:
            continue  # not ponder's (LangGraph's own keys); unknown keys are create()'s to refuse
        if settable_by(Configuration.model_fields[name]) == "operator":
            if _same_as_operator(name, value, operator):
                continue
            if name in OWN_FILE_FIELDS and own:
                mine = own_files(name, value, operator, own)
                if isinstance(mine, str):
                    problems.append(mine)
                else:
                    vetted[name] = mine[0]
                continue
            problems.append(_operator_only(name))
            continue
        problem = _limit(name, value, operator, own)
        if isinstance(problem, str):
            problems.append(problem)
        else:
            vetted[name] = value if problem is None else problem[0]
    if problems:
        raise CallerRefusedError(
            "This server refused the run's settings: " + "; ".join(problems) + ". A caller "
            f"may set: {', '.join(caller_fields())} (the operator sets the rest)."
        )
    return vetted


def served_options(
    values: Mapping[str, Any],
    operator: Configuration | None = None,
    own: Sequence[Path] = (),
) -> dict[str, Any]:
    """The explicit options of a caller's run: its vetted values, and the operator's document
    roots as its documents when the operator named roots but no ``docs``.

    A caller's own ``docs`` come with the operator's folders as ``docs_roots`` (the
    operator's, even when only ``docs`` named them): the folders whose indexes serve every
    choice of ``docs`` inside them, so no choice has a folder indexed twice."""
    operator = operator or operator_configuration()
    options = lowered_to_ceilings(vet(values, operator, own), operator)
    if "docs" not in options and not operator.docs and operator.docs_roots:
        options["docs"] = [str(root) for root in document_roots(operator)]
    elif "docs" in options and not operator.docs_roots:
        options["docs_roots"] = [str(root) for root in document_roots(operator)]
    return options


def continued_options(
    asked: Mapping[str, Any] | None,
    stored: Mapping[str, Any],
    operator: Configuration | None = None,
    own: Sequence[Path] = (),
) -> dict[str, Any]:
    """A caller's follow-up or resume is a new request: what they asked when the run began
    (``asked``; for a run from before that was kept, the caller's fields of its ``stored``
    settings), vetted again against today's operator settings — a folder revoked since, a
    lowered ceiling, a model or a backend no longer offered is refused
    (CallerRefusedError) — with today's folders for a caller who named none."""
    chosen = (
        dict(asked)
        if asked is not None
        else {name: value for name, value in stored.items() if name in caller_fields()}
    )
    return served_options(chosen, operator, own)


def served_configuration(values: Mapping[str, Any]) -> Configuration:
    """A served run's configuration: the operator's, with the caller's allowed values."""
    return Configuration.create(**served_options(values))


def _operator_only(name: str, said: str | None = None) -> str:
    aliases = [variable for variable, field in ENV_ALIASES.items() if field == name]
    where = " or ".join([*aliases, f"{PREFIX}{name.upper()}"])
    shown = f"{said} ({name})" if said else name
    return f"{shown} is set by the server's operator ({where} in its environment), not by a caller"


def _same_as_operator(name: str, value: Any, operator: Configuration) -> bool:
    try:
        candidate = Configuration.model_validate({**operator.model_dump(), name: value})
    except ValidationError:
        return False
    return bool(getattr(candidate, name) == getattr(operator, name))


def _limit(
    name: str, value: Any, operator: Configuration, own: Sequence[Path] = ()
) -> str | tuple[Any] | None:
    """A problem with a caller field's value (text), a replacement value (1-tuple), or None."""
    if name == "search":
        enabled = enabled_searches(operator, own)
        chosen = search_names(value) if isinstance(value, str | list | tuple) else [value]
        if chosen and all(part in enabled for part in chosen):
            return None  # several enabled backends together reach no further than each
        shown = ",".join(map(str, chosen)) if chosen else value
        return (
            f"search={shown!r} is not enabled here (a caller may choose {', '.join(enabled)}, "
            "alone or comma-separated; the operator enables others with "
            "PONDER_CALLER_SEARCHES)"
        )
    if name == "docs":
        return _inside_roots(value, operator, own)
    if (over := above_ceiling(name, value, operator)) is not None:
        return over
    if name in _MODEL_FIELDS:
        allowed = operator.caller_models
        if value in (operator.model, operator.report_model) or "*" in allowed or value in allowed:
            return None
        offered = ", ".join([operator.model, *allowed])
        return (
            f"{name}={value!r} is not offered here (a caller may choose {offered}; the "
            "operator offers others with PONDER_CALLER_MODELS)"
        )
    if name == "fetch_full_page" and operator.allow_private_urls:
        if value == operator.fetch_full_page:
            return None
        return (
            "fetch_full_page is the operator's to set on this server, since it reads "
            "private-network addresses (allow_private_urls)"
        )
    return None


def _inside_roots(
    value: Any, operator: Configuration, own: Sequence[Path] = ()
) -> str | tuple[Any]:
    paths = value.split(os.pathsep) if isinstance(value, str) else value
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        return "docs must be a list of paths"
    offered = document_roots(operator)
    roots = [*offered, *(Path(folder).resolve() for folder in own)]
    if not roots:
        return (
            "docs: this server offers no documents to callers (its operator names folders "
            "with PONDER_DOCS or PONDER_DOCS_ROOTS)"
        )
    homes = [raw for raw in paths if raw.startswith("~") and raw[1:2] not in ("", "/")]
    if homes:  # one answer for every ~name: which users exist here is not a caller's to learn
        return (
            "docs: a path starting with ~name names a user's home folder, which a caller "
            "may not — give the path inside this server's document folders"
        )
    unusable = [problem for raw in paths if (problem := path_problem(raw))]
    if unusable:
        return "docs: " + "; ".join(unusable)
    resolved, outside, hidden = [], [], []
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        holders = [root for root in roots if path == root or root in path.parents]
        if not holders:
            outside.append(raw)
        elif not operator.docs_hidden_and_symlinks and hidden_below(path, holders):
            hidden.append(raw)
        else:
            resolved.append(str(path))
    if outside:
        return (
            f"docs {', '.join(outside)} lie outside this server's document folders "
            f"({', '.join(str(r) for r in offered) or 'none'}); a caller may search only "
            "inside them" + (" and their own uploads" if own else "")
        )
    if hidden:
        return (
            f"docs {', '.join(hidden)} name a hidden file or folder (a name starting with "
            "'.'), which this server does not offer; its operator offers them with "
            "PONDER_DOCS_HIDDEN_AND_SYMLINKS"
        )
    return (resolved,)
