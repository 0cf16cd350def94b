"""What every route asks of a request: its user, the run manager, the run the address
names (if this user may see it), and the answers that say no or send elsewhere."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from ponder.api import history
from ponder.core.errors import PonderError, TooManyRunsError
from ponder.interfaces.ui import pages, store
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.manager import RunManager
from ponder.settings.callers import operator_configuration


def user_of(request: Request) -> User:
    user: User = request.scope["user"]
    return user


def manager_of(request: Request) -> RunManager:
    manager: RunManager = request.app.state.manager
    return manager


def run_limit(user: User) -> int | None:
    """How many runs the user may have live at once: a caller's ``caller_runs``; the
    operator, any number."""
    return None if user.operator else operator_configuration().caller_runs


def refused_status(exc: PonderError, otherwise: int) -> int:
    return 429 if isinstance(exc, TooManyRunsError) else otherwise


def visible(user: User, records: list[Any]) -> list[Any]:
    if user.operator:
        return records
    owned = store.owners()
    return [r for r in records if owned.get(r.thread_id) == user.name]


def visible_run(request: Request) -> Any:
    """The run the address names, if this user may see it (else 404: not even its id)."""
    thread_id = request.path_params["thread_id"]
    record = history.run(thread_id)
    if record is None or not visible(user_of(request), [record]):
        return None
    return record


def missing() -> HTMLResponse:
    return HTMLResponse(
        pages.message_page("No such run", "This run does not exist (or is not yours)."), 404
    )


def redirect_to(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)
