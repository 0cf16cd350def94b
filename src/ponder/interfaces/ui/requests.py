"""What every route asks of a request: its user, where its runs are held, the run the
address names (if this user may see it), and the answers that say no or send elsewhere."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from ponder.core.errors import PonderError, TooManyRunsError
from ponder.interfaces.ui import pages
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.engine_runs import EngineRuns
from ponder.interfaces.ui.local_runs import LocalRuns

Runs = LocalRuns | EngineRuns


def user_of(request: Request) -> User:
    user: User = request.scope["user"]
    return user


def runs_of(request: Request) -> Runs:
    """Where the runs are held: this process (LocalRuns), or an engine (EngineRuns)."""
    runs: Runs = request.app.state.runs
    return runs


def engine_of(request: Request) -> EngineRuns | None:
    runs = runs_of(request)
    return runs if isinstance(runs, EngineRuns) else None


def refused_status(exc: PonderError, otherwise: int) -> int:
    return 429 if isinstance(exc, TooManyRunsError) else otherwise


async def visible_run(request: Request) -> Any:
    """The run the address names, if this user may see it (else None, and 404: not even
    its id)."""
    return await runs_of(request).record(user_of(request), request.path_params["thread_id"])


def missing() -> HTMLResponse:
    return HTMLResponse(
        pages.message_page("No such run", "This run does not exist (or is not yours)."), 404
    )


def redirect_to(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)
