"""`ponder ui`'s routes: the pages, the live event stream, exports and the documents page.

Starlette serves them (it is what the MCP SDK's HTTP transport already runs on), with
server-sent events from ``sse-starlette``; every asset ships in ``static/`` beside this
module, and every page carries a Content-Security-Policy of ``'self'``.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ponder import api, history
from ponder.callers import operator_configuration
from ponder.errors import InvalidInputError, PonderError, TooManyRunsError
from ponder.interfaces.html import STYLE, render_html, report_body
from ponder.interfaces.ui import pages, shown, store
from ponder.interfaces.ui.access import Access, User
from ponder.interfaces.ui.asking import ask_defaults, models_info, run_options
from ponder.interfaces.ui.folders import Indexer, folders_info
from ponder.interfaces.ui.manager import RunManager

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HISTORY_LIMIT = 500


def create_app(host: str = "127.0.0.1", port: int = 8765) -> Any:
    """The ASGI app: the routes behind the access checks and the security headers."""
    manager = RunManager()
    indexer = Indexer()

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        warming = asyncio.create_task(asyncio.to_thread(api.warm_up))  # serving starts now
        yield
        await manager.close()
        await warming

    routes = [
        Route("/", _ask_page, methods=["GET"]),
        Route("/runs", _runs_page, methods=["GET"]),
        Route("/runs", _start, methods=["POST"]),
        Route("/runs/{thread_id}", _run_page, methods=["GET"]),
        Route("/runs/{thread_id}/events", _events, methods=["GET"]),
        Route("/runs/{thread_id}/log", _log, methods=["GET"]),
        Route("/runs/{thread_id}/report", _report_fragment, methods=["GET"]),
        Route("/runs/{thread_id}/export.{kind:str}", _export, methods=["GET"]),
        Route("/runs/{thread_id}/{action:str}", _act, methods=["POST"]),
        Route("/api/models", _models, methods=["GET"]),
        Route("/documents", _documents_page, methods=["GET"]),
        Route("/documents", _index_folder, methods=["POST"]),
        Route("/documents/jobs/{job:int}", _index_job, methods=["GET"]),
        Route("/report.css", _report_css, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.manager = manager
    app.state.indexer = indexer
    return Access(_SecurityHeaders(app), host, port)


class _SecurityHeaders:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),  # no-referrer: Origin null
                ]
            await send(message)

        await self.app(scope, receive, with_headers)


# -- helpers -----------------------------------------------------------------------------


def _user(request: Request) -> User:
    user: User = request.scope["user"]
    return user


def _manager(request: Request) -> RunManager:
    manager: RunManager = request.app.state.manager
    return manager


def _run_limit(user: User) -> int | None:
    """How many runs the user may have live at once: a caller's ``caller_runs``; the
    operator, any number."""
    return None if user.operator else operator_configuration().caller_runs


def _refused_status(exc: PonderError, otherwise: int) -> int:
    return 429 if isinstance(exc, TooManyRunsError) else otherwise


def _visible(user: User, records: list[Any]) -> list[Any]:
    if user.operator:
        return records
    owned = store.owners()
    return [r for r in records if owned.get(r.thread_id) == user.name]


def _record(request: Request) -> Any:
    """The run the address names, if this user may see it (else 404: not even its id)."""
    thread_id = request.path_params["thread_id"]
    record = history.run(thread_id)
    if record is None or not _visible(_user(request), [record]):
        return None
    return record


def _missing() -> HTMLResponse:
    return HTMLResponse(
        pages.message_page("No such run", "This run does not exist (or is not yours)."), 404
    )


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


# -- asking ------------------------------------------------------------------------------


async def _ask_page(request: Request) -> HTMLResponse:
    user = _user(request)
    form = ask_defaults(user)
    recent = _visible(user, history.runs(HISTORY_LIMIT))
    return HTMLResponse(pages.ask_page(form, None, recent))


async def _start(request: Request) -> Response:
    user = _user(request)
    submitted = await request.form()
    form = ask_defaults(user, submitted)
    try:
        topic, options = await asyncio.to_thread(run_options, user, submitted)
        thread_id = _manager(request).start(topic, options, user.name, _run_limit(user))
    except PonderError as exc:
        recent = _visible(user, history.runs(HISTORY_LIMIT))
        said = shown.text(user, str(exc))
        return HTMLResponse(pages.ask_page(form, said, recent), _refused_status(exc, 400))
    return _back(f"/runs/{thread_id}")


async def _models(request: Request) -> JSONResponse:
    return JSONResponse(await asyncio.to_thread(models_info, _user(request)))


# -- history and one run -----------------------------------------------------------------


async def _runs_page(request: Request) -> HTMLResponse:
    query = request.query_params.get("q", "").strip()
    records = _visible(_user(request), history.runs(HISTORY_LIMIT))
    if query:
        words = query.lower().split()
        records = [
            r for r in records if all(w in f"{r.topic} {r.thread_id}".lower() for w in words)
        ]
    return HTMLResponse(pages.history_page(records, query))


async def _run_page(request: Request) -> HTMLResponse:
    record = _record(request)
    if record is None:
        return _missing()
    live = _manager(request).is_live(record.thread_id)
    user = _user(request)
    report = None if live else shown.report(user, await history.report(record.thread_id))
    return HTMLResponse(pages.run_page(shown.record(user, record), report, live))


async def _events(request: Request) -> Response:
    record = _record(request)
    if record is None:
        return _missing()
    after = _last_event_id(request)
    follow = _manager(request).follow(record.thread_id, after)
    user = _user(request)
    view = shown.view_for(user)

    async def stream() -> Any:
        async for seq, event in follow:
            data = json.dumps(shown.event(view, event))
            yield {"id": str(seq), "event": "progress", "data": data}
        # How the run stands now: a replayed log of a run killed mid-way ends on "running".
        ended = shown.record(user, history.run(record.thread_id) or record)
        yield {
            "event": "end",
            "data": json.dumps({"status": ended.status, "message": ended.message}),
        }

    return EventSourceResponse(stream(), ping=10)


def _last_event_id(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    return int(raw) if raw.isdigit() else 0


async def _log(request: Request) -> Response:
    record = _record(request)
    if record is None:
        return _missing()
    run = _manager(request).run(record.thread_id)
    view = shown.view_for(_user(request))
    return JSONResponse([{"seq": seq, **shown.event(view, event)} for seq, event in run.events])


async def _report_fragment(request: Request) -> Response:
    record = _record(request)
    if record is None:
        return _missing()
    report = shown.report(_user(request), await history.report(record.thread_id))
    if report is None:
        return HTMLResponse("", status_code=204)
    return HTMLResponse(report_body(report))


async def _export(request: Request) -> Response:
    record = _record(request)
    if record is None:
        return _missing()
    kind = request.path_params["kind"]
    name = f"ponder-{record.thread_id}.{kind}"
    disposition = {"content-disposition": f'attachment; filename="{name}"'}
    if kind == "json":
        trail = shown.trail(_user(request), await history.trail(record.thread_id))
        return JSONResponse(trail, headers=disposition)
    report = shown.report(_user(request), await history.report(record.thread_id))
    if report is None or kind not in ("md", "html"):
        return HTMLResponse(
            pages.message_page("Nothing to export", "This run has no report yet."), 404
        )
    if kind == "md":
        return Response(report.markdown, media_type="text/markdown", headers=disposition)
    return HTMLResponse(render_html(report), headers=disposition)


async def _act(request: Request) -> Response:
    record = _record(request)
    if record is None:
        return _missing()
    thread_id, action = record.thread_id, request.path_params["action"]
    manager = _manager(request)
    form = await request.form()
    by, limit = _user(request).name, _run_limit(_user(request))
    try:
        if action == "stop":
            manager.stop(thread_id)
        elif action == "resume":
            manager.resume(thread_id, None, by, limit)
        elif action == "answer":
            manager.resume(thread_id, str(form.get("answer") or "").strip() or None, by, limit)
        elif action == "follow-up":
            manager.follow_up(thread_id, str(form.get("topic") or ""), by, limit)
        elif action == "delete":
            return await _delete(request, thread_id)
        else:
            return HTMLResponse(pages.message_page("Unknown action", action), 404)
    except PonderError as exc:
        return HTMLResponse(
            pages.message_page(
                "Cannot do that", shown.text(_user(request), str(exc)), f"/runs/{thread_id}"
            ),
            _refused_status(exc, 409),
        )
    if action == "stop":
        await _stopped(manager, thread_id)
    return _back(f"/runs/{thread_id}")


async def _stopped(manager: RunManager, thread_id: str) -> None:
    """Wait (briefly) for the cancelled run to record that it stopped."""
    for _ in range(50):
        if not manager.is_live(thread_id):
            return
        await asyncio.sleep(0.05)


async def _delete(request: Request, thread_id: str) -> Response:
    manager = _manager(request)
    if manager.is_live(thread_id):
        raise InvalidInputError("This run is still running — stop it before deleting it.")
    await history.delete(thread_id)
    manager.forget(thread_id)
    return _back("/runs")


async def _report_css(_request: Request) -> Response:
    """The HTML report's own styles: a report looks the same in the UI and exported."""
    return Response(STYLE, media_type="text/css", headers={"cache-control": "max-age=3600"})


# -- documents ---------------------------------------------------------------------------


async def _documents_page(request: Request) -> HTMLResponse:
    user = _user(request)
    folders = await asyncio.to_thread(folders_info, user)
    return HTMLResponse(pages.documents_page(folders, user.operator, None))


async def _index_folder(request: Request) -> Response:
    user = _user(request)
    form = await request.form()
    indexer: Indexer = request.app.state.indexer
    try:
        job = indexer.start(user, str(form.get("path") or ""))
    except PonderError as exc:
        if "json" in request.headers.get("accept", ""):
            return JSONResponse({"error": str(exc)}, status_code=400)
        folders = await asyncio.to_thread(folders_info, user)
        return HTMLResponse(pages.documents_page(folders, user.operator, str(exc)), 400)
    if "json" in request.headers.get("accept", ""):
        return JSONResponse({"job": job})
    return _back("/documents")


async def _index_job(request: Request) -> JSONResponse:
    indexer: Indexer = request.app.state.indexer
    job = indexer.jobs.get(request.path_params["job"])
    if job is None or job.owner != _user(request).name:
        return JSONResponse({"error": "no such job"}, status_code=404)
    return JSONResponse(job.view())
