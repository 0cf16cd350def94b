"""`ponder ui`'s routes: the pages, the live event stream, exports and the documents page.

Starlette serves them (it is what the MCP SDK's HTTP transport already runs on), with
server-sent events from ``sse-starlette``; every asset ships in ``static/`` beside this
module, and every page carries a Content-Security-Policy of ``'self'``.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ponder import api
from ponder.core.errors import PonderError, RemoteServerError
from ponder.interfaces.html import STYLE
from ponder.interfaces.ui import pages, shown, threads
from ponder.interfaces.ui.access import Access, users
from ponder.interfaces.ui.asking import (
    ask_defaults,
    models_info,
    run_options,
    unreachable_searches,
)
from ponder.interfaces.ui.document_routes import documents_page, index_folder, index_job
from ponder.interfaces.ui.engine_runs import EngineRuns
from ponder.interfaces.ui.folders import Indexer
from ponder.interfaces.ui.local_runs import LocalRuns
from ponder.interfaces.ui.requests import (
    Runs,
    engine_of,
    redirect_to,
    refused_status,
    runs_of,
    user_of,
)
from ponder.interfaces.ui.run_routes import (
    act,
    events,
    export,
    log,
    report_fragment,
    run_page,
)
from ponder.interfaces.ui.upload_routes import delete_upload, index_uploads, upload
from ponder.interfaces.ui.watch_routes import act_on_watch, add_watch, feed, watches_page
from ponder.settings.environment import Environment, read_environment

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HISTORY_LIMIT = 500


def create_app(
    host: str = "127.0.0.1", port: int = 8765, environment: Environment | None = None
) -> Any:
    """The ASGI app: the routes behind the access checks and the security headers.
    ``environment``: the tokens, as `ponder ui` read them (else read here)."""
    environment = environment or read_environment()
    server = api.server_url(None, environment.machine)
    runs: Runs = EngineRuns(server, environment) if server else LocalRuns()
    indexer = Indexer()

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        # The model is warmed where the runs run: here, or on the engine's machines.
        warming = asyncio.create_task(asyncio.to_thread(api.warm_up if not server else _idle))
        yield
        indexer.close()
        await runs.close()  # this process's runs stopped (resumable), or its engine connections
        await warming

    routes = [
        Route("/", _ask_page, methods=["GET"]),
        Route("/runs", _runs_page, methods=["GET"]),
        Route("/runs", _start, methods=["POST"]),
        Route("/runs/{thread_id}", run_page, methods=["GET"]),
        Route("/runs/{thread_id}/events", events, methods=["GET"]),
        Route("/runs/{thread_id}/log", log, methods=["GET"]),
        Route("/runs/{thread_id}/report", report_fragment, methods=["GET"]),
        Route("/runs/{thread_id}/export.{kind:str}", export, methods=["GET"]),
        Route("/runs/{thread_id}/{action:str}", act, methods=["POST"]),
        Route("/watches", watches_page, methods=["GET"]),
        Route("/watches", add_watch, methods=["POST"]),
        Route("/watches/{watch_id}/{action:str}", act_on_watch, methods=["POST"]),
        Route("/feeds/{watch_id}/{key}.atom", feed, methods=["GET"]),
        Route("/api/models", _models, methods=["GET"]),
        Route("/api/searches", _searches, methods=["GET"]),
        Route("/documents", documents_page, methods=["GET"]),
        Route("/documents", index_folder, methods=["POST"]),
        Route("/documents/jobs/{job:int}", index_job, methods=["GET"]),
        Route("/documents/uploads", upload, methods=["POST"]),
        Route("/documents/uploads/index", index_uploads, methods=["POST"]),
        Route("/documents/uploads/delete", delete_upload, methods=["POST"]),
        Route("/report.css", _report_css, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    if server:  # documents are indexed, and watches run, where the engine runs, not here
        routes = [route for route in routes if not _on_engine_only(route)]
        routes.insert(0, Route("/documents{rest:path}", _engine_documents, methods=["GET", "POST"]))
        routes.insert(0, Route("/watches{rest:path}", _engine_watches, methods=["GET", "POST"]))
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={PonderError: _cannot})
    app.state.runs = runs
    app.state.indexer = indexer
    app.state.uploading = set()  # the users with an upload under way (one each)
    known = users(environment.secrets)
    origins = environment.machine.ui_origins
    # On an engine, everyone is one of its callers: its operator sets its operator settings.
    return Access(_SecurityHeaders(app), host, port, known, origins, callers_only=bool(server))


def _idle() -> None:
    return None


async def _cannot(request: Request, exc: Exception) -> HTMLResponse:
    """A PonderError no route answered itself (an engine that cannot be reached, a user
    with no token for it): its message, which says what to do, on a page."""
    status = 502 if isinstance(exc, RemoteServerError) else 503
    said = shown.text(user_of(request), str(exc))
    return HTMLResponse(pages.message_page("Cannot do that now", said, "/"), status)


def _on_engine_only(route: Any) -> bool:
    return str(getattr(route, "path", "")).startswith(("/documents", "/watches", "/feeds"))


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


# -- asking ------------------------------------------------------------------------------


async def _ask_page(request: Request) -> HTMLResponse:
    user = user_of(request)
    form = ask_defaults(user)
    recent = await runs_of(request).records(user, HISTORY_LIMIT)
    return HTMLResponse(pages.ask_page(form, None, recent))


async def _start(request: Request) -> Response:
    user, runs = user_of(request), runs_of(request)
    submitted = await request.form()
    form = ask_defaults(user, submitted)
    try:
        # On an engine, the engine checks its own model server when the run starts.
        checked = engine_of(request) is None
        topic, asked, options = await asyncio.to_thread(run_options, user, submitted, checked)
        thread_id = await runs.start(user, topic, options, asked)
    except PonderError as exc:  # the form again, with what was typed and why not
        recent = await _recent(runs, user)
        said = shown.text(user, str(exc))
        status = 502 if isinstance(exc, RemoteServerError) else refused_status(exc, 400)
        return HTMLResponse(pages.ask_page(form, said, recent), status)
    return redirect_to(f"/runs/{thread_id}")


async def _recent(runs: Runs, user: Any) -> list[Any]:
    """The recent runs beside a refused form; none when the engine cannot list them (the
    refusal says why)."""
    try:
        return await runs.records(user, HISTORY_LIMIT)
    except PonderError:
        return []


async def _models(request: Request) -> JSONResponse:
    wanted = request.query_params.get("model") or None  # the one the picker shows now
    return JSONResponse(await asyncio.to_thread(models_info, user_of(request), wanted))


async def _searches(request: Request) -> JSONResponse:
    """The form's web searches that cannot be reached now, with why (ask.js says so)."""
    return JSONResponse(await asyncio.to_thread(unreachable_searches, user_of(request)))


# -- history and one run -----------------------------------------------------------------


async def _runs_page(request: Request) -> HTMLResponse:
    query = request.query_params.get("q", "").strip()
    records = await runs_of(request).records(user_of(request), HISTORY_LIMIT)
    if query:  # any part of a word, in the first question or a follow-up
        records = [record for record in records if threads.matches(record, query)]
    return HTMLResponse(pages.history_page(records, query))


async def _report_css(_request: Request) -> Response:
    """The HTML report's own styles: a report looks the same in the UI and exported."""
    return Response(STYLE, media_type="text/css", headers={"cache-control": "max-age=3600"})


# -- documents ---------------------------------------------------------------------------


async def _engine_watches(_request: Request) -> HTMLResponse:
    said = (
        "This page runs research on an engine; watched questions run with `ponder watch` on "
        "a machine that holds its own runs, not yet on an engine."
    )
    return HTMLResponse(pages.message_page("Watches are not offered here", said, "/"), 404)


async def _engine_documents(request: Request) -> HTMLResponse:
    """On an engine, the documents a run reads are on the engine's machines."""
    said = (
        "This page runs research on an engine, and the documents its runs read are indexed "
        "where the engine runs: its operator indexes them there (`ponder index`, with the "
        "engine's PONDER_INDEX_DIR). Uploads are not offered here."
    )
    return HTMLResponse(pages.message_page("Documents are on the engine", said, "/"), 404)
