"""What a user of `ponder ui` who is not its operator is shown of a run.

The operator sees everything, as written for them. A caller (a ``PONDER_UI_TOKENS`` user)
gets its runs without the operator's internals (:mod:`ponder.settings.caller_view`): warnings,
errors and failure messages name the operator's hosts and files by their settings, the
statistics name Ollama hosts "ollama host 1"…, and an exported run carries the caller's
own settings only. It is applied when a page or a stream is served, so the same run reads
in full to the operator.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ponder.core.result import Report
from ponder.interfaces.ui import collection
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.wording import for_the_page
from ponder.settings.caller_view import CallerView
from ponder.settings.callers import operator_configuration


def view_for(user: User) -> CallerView | None:
    """None for the operator (shown everything), a caller's view otherwise (their own
    uploads folder named as it is)."""
    if user.operator:
        return None
    return CallerView(operator_configuration(), [collection.folder_of(user)])


def text(user: User, message: str) -> str:
    """An error or a refusal as this user is shown it, in the page's words."""
    view = view_for(user)
    return for_the_page(message if view is None else view.text(message))


def event(view: CallerView | None, data: dict[str, Any]) -> dict[str, Any]:
    return data if view is None else view.event(data)


def record(user: User, run: Any) -> Any:
    """A run's history entry, its message (why it failed) shown."""
    if not run.message:
        return run
    return dataclasses.replace(run, message=text(user, run.message))


def report(user: User, written: Report | None) -> Report | None:
    view = view_for(user)
    return written if view is None or written is None else view.report(written)


def trail(user: User, data: dict[str, Any] | None) -> dict[str, Any] | None:
    """An exported run: the caller's own settings, its report as shown to it."""
    view = view_for(user)
    if view is None or data is None:
        return data
    shown = {**data, "config": view.settings(data.get("config") or {})}
    shown["report"] = _report_data(view, data.get("report"))
    shown["turns"] = [
        {**turn, "report": _report_data(view, turn.get("report"))}
        for turn in data.get("turns") or []
    ]
    return shown


def _report_data(view: CallerView, data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    return view.report(Report.model_validate(data)).model_dump()
