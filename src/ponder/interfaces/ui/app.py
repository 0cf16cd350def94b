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
from ponder.api import history
from ponder.core.errors import PonderError
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
from ponder.interfaces.ui.folders import Indexer
from ponder.interfaces.ui.manager import RunManager
from ponder.interfaces.ui.requests import (
    manager_of,
    redirect_to,
    refused_status,
    run_limit,
    user_of,
    visible,
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
    manager = RunManager()
    indexer = Indexer()

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> Any:
        warming = asyncio.create_task(asyncio.to_thread(api.warm_up))  # serving starts now
        yield
        indexer.close()
        await manager.close()
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
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.manager = manager
    app.state.indexer = indexer
    app.state.uploading = set()  # the users with an upload under way (one each)
    known = users(environment.secrets)
    return Access(_SecurityHeaders(app), host, port, known, environment.machine.ui_origins)


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
    recent = visible(user, history.runs(HISTORY_LIMIT))
    return HTMLResponse(pages.ask_page(form, None, recent))


async def _start(request: Request) -> Response:
    user = user_of(request)
    submitted = await request.form()
    form = ask_defaults(user, submitted)
    try:
        topic, asked, options = await asyncio.to_thread(run_options, user, submitted)
        kept = None if user.operator else asked  # a caller's follow-up is vetted from it
        thread_id = manager_of(request).start(topic, options, user.name, run_limit(user), kept)
    except PonderError as exc:
        recent = visible(user, history.runs(HISTORY_LIMIT))
        said = shown.text(user, str(exc))
        return HTMLResponse(pages.ask_page(form, said, recent), refused_status(exc, 400))
    return redirect_to(f"/runs/{thread_id}")


async def _models(request: Request) -> JSONResponse:
    wanted = request.query_params.get("model") or None  # the one the picker shows now
    return JSONResponse(await asyncio.to_thread(models_info, user_of(request), wanted))


async def _searches(request: Request) -> JSONResponse:
    """The form's web searches that cannot be reached now, with why (ask.js says so)."""
    return JSONResponse(await asyncio.to_thread(unreachable_searches, user_of(request)))


# -- history and one run -----------------------------------------------------------------


async def _runs_page(request: Request) -> HTMLResponse:
    query = request.query_params.get("q", "").strip()
    records = visible(user_of(request), history.runs(HISTORY_LIMIT))
    if query:  # any part of a word, in the first question or a follow-up
        records = [record for record in records if threads.matches(record, query)]
    return HTMLResponse(pages.history_page(records, query))


async def _report_css(_request: Request) -> Response:
    """The HTML report's own styles: a report looks the same in the UI and exported."""
    return Response(STYLE, media_type="text/css", headers={"cache-control": "max-age=3600"})


# -- documents ---------------------------------------------------------------------------
