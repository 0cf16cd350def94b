"""The documents page: the folders a run may read, indexing one with progress, the
operator's ZIM archives and reference libraries, and the user's own uploads — documents,
archives and libraries (:mod:`.upload_routes` adds and deletes them)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ponder.api import documents
from ponder.core.errors import PonderError
from ponder.interfaces.ui import collection, references, shown
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.documents_page import documents_page as documents_html
from ponder.interfaces.ui.folders import Indexer, folders_info
from ponder.interfaces.ui.requests import redirect_to, refused_status, user_of


async def documents_page(request: Request) -> HTMLResponse:
    return await documents_view(user_of(request), None)


async def documents_view(user: User, error: str | None, status: int = 200) -> HTMLResponse:
    folders = await asyncio.to_thread(folders_info, user)
    uploads = await asyncio.to_thread(uploads_info, user)
    shelf = await asyncio.to_thread(references.operators, user)
    page = documents_html(folders, user.operator, error, uploads, shelf)
    return HTMLResponse(page, status)


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
        return await documents_view(user, str(exc), status)
    if "json" in request.headers.get("accept", ""):
        return JSONResponse({"job": job})
    return redirect_to("/documents")


async def index_job(request: Request) -> JSONResponse:
    indexer: Indexer = request.app.state.indexer
    job = indexer.jobs.get(request.path_params["job"])
    if job is None or job.owner != user_of(request).name:
        return JSONResponse({"error": "no such job"}, status_code=404)
    return JSONResponse(job.view())


def uploads_info(user: User) -> dict[str, Any]:
    """What the Documents page shows of the user's uploads: each file with its size and
    whether it is indexed (an archive or a library: what it holds), the totals, the limits
    (or why uploads are off)."""
    limits = collection.limits()
    why = collection.unavailable()
    held = collection.files(user)
    states: dict[str, str] = {}
    if held:
        status = documents.index_status([collection.folder_of(user)])
        states = {path: "indexed" for path in status.fresh}
        states |= {path: f"skipped: {reason}" for path, reason in status.skipped}
    rows = [
        {
            "name": stored.name,
            "size": collection.size_text(stored.size),
            "state": references.state_of(stored) or states.get(stored.path, "not indexed yet"),
            "document": references.kind_of(stored.name) == "document",
        }
        for stored in held
    ]
    total = sum(stored.size for stored in held)
    return {
        "off": shown.text(user, why) if why else None,
        "files": rows,
        "used": f"{len(held)} of {limits.files} files, {collection.size_text(total)} of "
        f"{collection.size_text(limits.total_bytes)}",
        "limits": limits.said(),
        "accept": ",".join(limits.suffixes),
        "kinds": ", ".join(s for s in limits.suffixes if references.kind_of(f"x{s}") == "document"),
        "archives": limits.takes_archives,
    }
