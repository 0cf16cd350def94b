"""The documents page: the folders a run may read, and indexing one with progress."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ponder.core.errors import PonderError
from ponder.interfaces.ui import pages
from ponder.interfaces.ui.folders import Indexer, folders_info
from ponder.interfaces.ui.requests import redirect_to, refused_status, user_of


async def documents_page(request: Request) -> HTMLResponse:
    user = user_of(request)
    folders = await asyncio.to_thread(folders_info, user)
    return HTMLResponse(pages.documents_page(folders, user.operator, None))


async def index_folder(request: Request) -> Response:
    user = user_of(request)
    form = await request.form()
    indexer: Indexer = request.app.state.indexer
    try:
        job = indexer.start(user, str(form.get("path") or ""))
    except PonderError as exc:
        status = refused_status(exc, 400)
        if "json" in request.headers.get("accept", ""):
            return JSONResponse({"error": str(exc)}, status_code=status)
        folders = await asyncio.to_thread(folders_info, user)
        return HTMLResponse(pages.documents_page(folders, user.operator, str(exc)), status)
    if "json" in request.headers.get("accept", ""):
        return JSONResponse({"job": job})
    return redirect_to("/documents")


async def index_job(request: Request) -> JSONResponse:
    indexer: Indexer = request.app.state.indexer
    job = indexer.jobs.get(request.path_params["job"])
    if job is None or job.owner != user_of(request).name:
        return JSONResponse({"error": "no such job"}, status_code=404)
    return JSONResponse(job.view())
