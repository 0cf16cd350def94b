"""The routes of a user's own uploads: add files, index them, delete one.

An upload's body is not read by the access checks (:mod:`.access` lets this one path
through unread, after its token and Origin checks): it is streamed here, under the
user's limits (:mod:`.receiving`). A refusal is the Documents page with the reason, or
JSON ``{"error": ...}`` for the page's script, with the status that says why: 413 (too
large), 415 (a type ponder does not read, or an archive or a library that does not read as
one), 409 (too many files, or an upload of theirs
under way), 400 (no file, a malformed form), 403 (uploads are off).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from ponder.api import documents
from ponder.core.errors import PonderError
from ponder.interfaces.ui import collection, references, shown
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.collection import UploadRefused
from ponder.interfaces.ui.document_routes import documents_view
from ponder.interfaces.ui.folders import Indexer
from ponder.interfaces.ui.receiving import Receiver, boundary_of, check_length, clear_incoming
from ponder.interfaces.ui.requests import redirect_to, refused_status, user_of

# After a refusal, up to this much of the rest of the body is read (and dropped), so the
# browser, still sending, gets the answer instead of a connection closed under it.
DRAIN_BYTES = 8 * 1024 * 1024


async def upload(request: Request) -> Response:
    user = user_of(request)
    uploading: set[str] = request.app.state.uploading
    try:
        if user.name in uploading:
            raise UploadRefused(409, "An upload of yours is under way — wait for it to end.")
        uploading.add(user.name)
        try:
            names = await _receive(request, user)
        finally:
            uploading.discard(user.name)
    except UploadRefused as refused:
        return await _refusal(request, user, refused)
    job, note = _index(request, user)
    if _wants_json(request):
        return JSONResponse({"files": names, "job": job, "note": note})
    return redirect_to("/documents")


async def index_uploads(request: Request) -> Response:
    user = user_of(request)
    job, note = _index(request, user)
    if _wants_json(request):
        return JSONResponse({"job": job, "note": note}, status_code=200 if job else 429)
    return redirect_to("/documents")


async def delete_upload(request: Request) -> Response:
    user = user_of(request)
    form = await request.form()
    name = str(form.get("name") or "")
    try:
        await asyncio.to_thread(collection.delete, user, name)
        # At once out of the index too: a run in the next minute would not refresh it.
        await asyncio.to_thread(documents.index, [collection.folder_of(user)])
    except UploadRefused as refused:
        return await _refusal(request, user, refused)
    except PonderError as exc:  # deleted, but the index stays as it was for now
        said = f"{name} is deleted, but the index of your uploads could not be refreshed ({exc})."
        return await _refusal(request, user, UploadRefused(503, said))
    if _wants_json(request):
        return JSONResponse({"deleted": True})
    return redirect_to("/documents")


async def _receive(request: Request, user: User) -> list[str]:
    why = await asyncio.to_thread(collection.unavailable)
    if why is not None:
        raise UploadRefused(403, why)
    limits = collection.limits()
    boundary = boundary_of(request.headers.get("content-type", ""))
    folder = collection.folder_of(user)
    try:
        held = await asyncio.to_thread(_prepared, folder, user)
    except OSError as exc:
        raise UploadRefused(507, f"The server has no room for uploads ({exc.strerror}).") from None
    length = request.headers.get("content-length", "")
    if length.isdigit():
        check_length(int(length), held, limits)
    receiver = Receiver(boundary, folder, held, limits, references.check_arrived)
    body = request.stream()
    try:
        async for chunk in body:
            await asyncio.to_thread(receiver.feed, chunk)
        return await asyncio.to_thread(receiver.finish)
    except ClientDisconnect:
        raise UploadRefused(400, "The upload was cut off before it was whole.") from None
    except UploadRefused:
        await _drain(body)
        raise
    except OSError as exc:  # the disk full, a quota, permissions: the server's, not the form's
        await _drain(body)
        raise UploadRefused(
            507,
            f"The server could not keep this upload ({exc.strerror or exc}) — try again later, "
            "or tell its operator.",
        ) from None
    finally:
        await asyncio.to_thread(receiver.discard)


def _prepared(folder: Path, user: User) -> list[collection.Stored]:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    clear_incoming(folder)  # one upload per user at a time: what is there is left over
    return collection.files(user)


async def _drain(body: Any) -> None:
    drained = 0
    try:
        async for chunk in body:
            drained += len(chunk)
            if drained > DRAIN_BYTES:
                return
    except ClientDisconnect:
        return


def _index(request: Request, user: User) -> tuple[int | None, str | None]:
    """Start indexing the user's uploads; (the job, None), or (None, why not now)."""
    indexer: Indexer = request.app.state.indexer
    try:
        return indexer.start_collection(user, collection.folder_of(user)), None
    except PonderError as exc:
        return None, f"{exc} Your files are kept, and indexed when a run searches them."


async def _refusal(request: Request, user: User, refused: PonderError) -> Response:
    status = getattr(refused, "status", refused_status(refused, 400))
    said = shown.text(user, str(refused))
    if _wants_json(request):
        return JSONResponse({"error": said}, status_code=status)
    return await documents_view(user, said, status)


def _wants_json(request: Request) -> bool:
    return "json" in request.headers.get("accept", "")
