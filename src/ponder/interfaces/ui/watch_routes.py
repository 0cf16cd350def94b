"""The Watches page of `ponder ui`: watched questions added, run now, stopped, and each one's
Atom feed served at an address that carries a key for that feed alone.

The feed's key is not the login token: a feed reader sends no token, so the key is the
only thing it presents, and the owner renews it (``New feed address``) to revoke it. A
caller keeps at most ``caller_watches`` watches, each at least ``caller_watch_every``
apart, and a watch's run counts against their ``caller_runs`` while it runs.
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ponder.api import watches
from ponder.core.errors import InvalidInputError, PonderError
from ponder.interfaces.ui import shown, store, watch_pages
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.asking import ask_defaults, own_folders, run_options
from ponder.interfaces.ui.local_runs import LocalRuns, run_limit
from ponder.interfaces.ui.requests import redirect_to, refused_status, runs_of, user_of
from ponder.settings.callers import operator_configuration

ATOM = "application/atom+xml; charset=utf-8"


async def watches_page(request: Request) -> HTMLResponse:
    user = user_of(request)
    form = await asyncio.to_thread(ask_defaults, user)
    return HTMLResponse(watch_pages.watches_page(_rows(user), None, form))


async def add_watch(request: Request) -> Response:
    user = user_of(request)
    submitted = await request.form()
    try:
        topic, asked, options = await asyncio.to_thread(run_options, user, submitted, False)
        every = _every_allowed(user, str(submitted.get("every") or ""))
        _room_for_another(user)
        # A caller's watch is asked again of the operator's settings at each run.
        vetted: dict[str, Any] = {} if user.operator else {"asked": asked, "own": await _own(user)}
        await asyncio.to_thread(watches.add, topic, every, owner=user.name, **vetted, **options)
    except PonderError as exc:
        said = shown.text(user, str(exc))
        form = await asyncio.to_thread(ask_defaults, user, submitted)
        form["every"] = str(submitted.get("every") or "")
        return HTMLResponse(watch_pages.watches_page(_rows(user), said, form), 400)
    return redirect_to("/watches")


async def act_on_watch(request: Request) -> Response:
    user, action = user_of(request), request.path_params["action"]
    watch = _visible(user, request.path_params["watch_id"])
    if watch is None or action not in ("run", "remove", "new-key"):
        return HTMLResponse(watch_pages.no_such_watch(), 404)
    try:
        if action == "remove":  # refused while it runs
            await asyncio.to_thread(watches.remove, watch.id)
        elif action == "new-key":
            await asyncio.to_thread(watches.revoke_feed, watch.id)
        else:
            _start(request, user, watch)
    except PonderError as exc:
        said = shown.text(user, str(exc))
        form = await asyncio.to_thread(ask_defaults, user)
        page = watch_pages.watches_page(_rows(user), said, form)
        return HTMLResponse(page, refused_status(exc, 400))
    return redirect_to("/watches")


async def feed(request: Request) -> Response:
    """A watch's feed, to whoever presents its key (a feed reader has no login)."""
    watch_id, key = request.path_params["watch_id"], request.path_params["key"]
    try:
        watch = await asyncio.to_thread(watches.get, watch_id)
    except InvalidInputError:
        watch = None
    if watch is None or not hmac.compare_digest(key.encode(), watch.feed_key.encode()):
        return Response("ponder: no such feed (its address may have been renewed).\n", 404)
    address = str(request.url.replace(query=""))
    body = await asyncio.to_thread(watches.feed, watch.id, address)
    return Response(body, media_type=ATOM, headers={"cache-control": "no-store"})


def _start(request: Request, user: User, watch: watches.Watch) -> None:
    """Run the watch now, in this process, as one of the user's runs."""
    runs = runs_of(request)
    if not isinstance(runs, LocalRuns):  # the routes are not served on an engine
        raise InvalidInputError("Watches run where this page holds its runs.")
    work = watches.arun(watch, started=store.watch_run_owned)
    runs.manager.start_besides(watch.id, user.name, work, run_limit(user))


async def _own(user: User) -> list[str]:
    return [str(folder) for folder in await asyncio.to_thread(own_folders, user)]


def _every_allowed(user: User, every: str) -> float:
    seconds = watches.interval(every or "1d")
    shortest = operator_configuration().caller_watch_every
    if not user.operator and seconds < shortest:
        raise InvalidInputError(
            f"Every {every}: a watch here runs at most every {shortest:g} seconds (its "
            "operator sets PONDER_CALLER_WATCH_EVERY) — choose a longer interval."
        )
    return seconds


def _room_for_another(user: User) -> None:
    most = operator_configuration().caller_watches
    if not user.operator and len(watches.watches(user.name)) >= most:
        raise InvalidInputError(
            f"You keep {most} watch(es), as many as this server allows one person (its "
            "operator sets PONDER_CALLER_WATCHES) — remove one first."
        )


def _visible(user: User, watch_id: str) -> watches.Watch | None:
    try:
        watch = watches.get(watch_id)
    except InvalidInputError:
        return None
    return watch if user.operator or watch.owner == user.name else None


def _rows(user: User) -> list[watch_pages.Row]:
    return [
        watch_pages.Row(
            watch, watches.runs(watch.id), watches.next_due(watch), watches.changes(watch.id)
        )
        for watch in watches.watches(None if user.operator else user.name)
    ]
