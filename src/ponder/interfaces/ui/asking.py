"""The ask form: what it offers, and what a submitted form starts.

The operator (the person at their own machine) may choose any model the server has, any
search backend and any folder; a caller on a shared UI gets what ``ponder.settings.callers`` allows
— the operator's model or ``caller_models``, the enabled searches, folders inside the
document roots — and everything they send is vetted there. Before a run starts, the model
server is asked for the model, so a server that is down or a model not pulled shows on
the form within seconds, with what to do, instead of as a run that fails later.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ponder.api.probe import model_server, search_problems, search_ready, web_reach
from ponder.core.errors import ConfigurationError, InvalidInputError, OllamaUnavailableError
from ponder.core.topic import clean_topic
from ponder.interfaces.doctor import ollama_checks
from ponder.interfaces.ui import collection, references, shown, store
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.folders import allowed_folders
from ponder.settings import search_backends
from ponder.settings.callers import (
    continued_options,
    document_roots,
    enabled_searches,
    operator_configuration,
    served_options,
)
from ponder.settings.ceilings import hard_cap
from ponder.settings.configuration import Configuration

Form = Mapping[str, Any]


def ask_defaults(user: User, submitted: Form | None = None) -> dict[str, Any]:
    """The form's choices and values: the operator's defaults, or what was just sent."""
    operator = operator_configuration()
    own = own_folders(user)
    held = len(collection.files(user)) if own else 0
    searches = _offered_searches(user, operator, own)
    # A caller's rounds go up to the operator's ceiling; the operator's, to the hard cap.
    most_rounds = hard_cap("max_loops") if user.operator else operator.caller_max_loops
    values: dict[str, Any] = {
        "topic": "",
        "mode": operator.mode,
        "max_loops": min(operator.max_loops, most_rounds),
        "model": operator.model,
        "search": operator.searches,
        "docs": [str(root) for root in document_roots(operator)],
        "uploads": True,
    }
    if submitted is not None:
        values |= {
            "topic": str(submitted.get("topic") or ""),
            "mode": str(submitted.get("mode") or operator.mode),
            "max_loops": _number(submitted.get("max_loops"), operator.max_loops),
            "model": str(submitted.get("model") or operator.model),
            "search": _list(submitted, "search") or operator.searches,
            "docs": _list(submitted, "docs"),
            "uploads": bool(submitted.get("uploads")),
        }
    server = operator.openai_base_url if operator.provider == "openai" else operator.ollama_hosts[0]
    roots = allowed_folders(user)
    return {
        **values,
        "most_rounds": most_rounds,
        "searches": searches,
        # As this user's runs would be set up: their own archives make search=zim work.
        "unusable": search_problems(searches, operator.model_copy(update=_own_references(user))),
        "roots": roots,
        "held": held,
        "server": server if user.operator else "",
    }


def models_info(user: User, wanted: str | None = None) -> dict[str, Any]:
    """What the model picker shows: the server's models (a caller's allowed ones), the one
    it picks (``wanted`` when the server has it, else the configured model, else the first
    one there), and the health of a run with that one — or why there are none and what to
    do. A configured model the server lacks is said once, beside the one picked instead."""
    operator = operator_configuration()
    url = operator.openai_base_url if operator.provider == "openai" else operator.ollama_hosts[0]
    try:
        served = model_server(operator, url)
    except OllamaUnavailableError as down:
        said = shown.text(user, str(down))  # a caller is not told where the server is
        return {"ok": False, "models": [], "default": operator.model, "error": said}
    models = served.models
    if not user.operator:
        allowed = {operator.model, *operator.caller_models}
        models = [m for m in models if m in allowed]
    chosen = _picked(models, wanted, operator.model)
    checks = ollama_checks(operator.model_copy(update={"model": chosen}))
    problems = [c.message for c in checks if c.outcome == "fail"]
    missing = operator.model not in models and chosen != operator.model
    return {
        "ok": not problems,
        "kind": served.kind,
        "models": models,
        "default": operator.model,
        "chosen": chosen,
        "note": f"{operator.model} is not on the model server: {chosen} is used instead."
        if missing
        else None,
        "error": shown.text(user, problems[0]) if problems else None,
    }


def unreachable_searches(user: User) -> dict[str, str]:
    """The web searches on this user's form that cannot be reached now, each with why (no
    network on a train: DuckDuckGo's name does not resolve): the form says so beside them
    (not beside one it shows unusable already). Only the operator's addresses are tried,
    and a verdict is remembered for a while."""
    operator = operator_configuration()
    offered = _offered_searches(user, operator, own_folders(user))
    asked = operator.model_copy(update={"search": ",".join(offered)})
    _reachable, unreachable = web_reach(asked, fresh=False)
    return {name: shown.text(user, why) for name, why in unreachable.items()}


def _offered_searches(user: User, operator: Configuration, own: list[Path]) -> list[str]:
    """The searches this user's form offers: all for the operator, the enabled for a caller."""
    return list(search_backends.names()) if user.operator else enabled_searches(operator, own)


def _picked(models: list[str], wanted: str | None, default: str) -> str:
    if wanted in models:
        return str(wanted)
    return default if default in models or not models else models[0]


def run_options(
    user: User, submitted: Form, preflight: bool = True
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The question, what the user asked for, and the run's settings from a submitted
    form, checked before the run starts; raises a PonderError that says what to change.
    Ticked, the user's uploads are among the documents: for a caller, a folder of their
    own beside the operator's (no one else's run may name it); the archives and the
    libraries among them join the operator's. ``preflight``: ask the model server first
    (not when an engine runs the research, on its own)."""
    topic = clean_topic(str(submitted.get("topic") or ""))
    own = own_folders(user)
    docs = _list(submitted, "docs") + ([str(own[0])] if own and submitted.get("uploads") else [])
    values: dict[str, Any] = {
        "mode": str(submitted.get("mode") or "auto"),
        "model": str(submitted.get("model") or "").strip() or None,
        "max_loops": _number(submitted.get("max_loops"), None),
        "search": _list(submitted, "search") or None,
        "docs": docs or None,
    }
    if own and submitted.get("uploads"):
        values |= _own_references(user)
    values = {key: value for key, value in values.items() if value is not None}
    options = served_options(values, own=own) if not user.operator else values
    settings = Configuration.create(**options)
    if preflight:
        _preflight(settings)
    return topic, values, options


def continued(user: User, thread_id: str, stored: dict[str, Any]) -> dict[str, Any] | None:
    """A caller's settings to go on with a run (its follow-up, its resume), vetted again
    today; None for the operator, whose runs go on as they were."""
    if user.operator:
        return None
    return continued_options(store.asked(thread_id), stored, own=own_folders(user))


def _own_references(user: User) -> dict[str, list[str]]:
    """The user's archives and libraries, beside the operator's (none: left unset)."""
    operator = operator_configuration()
    chosen = {}
    for name, kind, theirs in (
        ("zim", "archive", operator.zim),
        ("library", "library", operator.library),
    ):
        mine = references.own(user, kind)
        if mine:
            chosen[name] = [*theirs, *mine]
    return chosen


def own_folders(user: User) -> list[Path]:
    """The user's uploads folder, once it holds files (uploads off: none)."""
    if collection.unavailable() is not None or not collection.files(user):
        return []
    return [collection.folder_of(user)]


def _preflight(settings: Configuration) -> None:
    failed = [check for check in ollama_checks(settings) if check.outcome == "fail"]
    if failed:
        raise ConfigurationError(failed[0].message)
    search_ready(settings)
    if "local" in settings.searches or "hybrid" in settings.searches:
        _documents_found(settings)


def _documents_found(settings: Configuration) -> None:
    from ponder.api.documents import index_status

    if settings.library and not settings.docs:
        return  # the library's attachments are its documents; a run warns of missing ones
    if not settings.docs:
        raise InvalidInputError(
            "Local search needs documents — tick a folder under 'Your documents', or add one "
            "on the Documents page."
        )
    status = index_status(settings.docs, settings)
    if status.indexed_files + status.stale_files == 0:
        raise InvalidInputError(
            f"No documents found in {', '.join(settings.docs)} — ponder reads text, Markdown, "
            "HTML, PDF and similar files; add some there or choose another folder."
        )


def _list(form: Form, name: str) -> list[str]:
    getter = getattr(form, "getlist", None)
    raw = getter(name) if getter else form.get(name) or []
    return [
        str(item).strip() for item in ([raw] if isinstance(raw, str) else raw) if str(item).strip()
    ]


def _number(raw: Any, default: int | None) -> int | None:
    text = str(raw or "").strip()
    return int(text) if text.isdigit() else default
