"""The routes of one run: its page, its live events, its log, its report, its exports,
and what may be done to it (stop, resume, answer, follow up, delete)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ponder.api import history
from ponder.core.errors import InvalidInputError, PonderError
from ponder.core.topic import slug
from ponder.interfaces.exports import KINDS
from ponder.interfaces.html import report_body, turn_anchors
from ponder.interfaces.ui import pages, shown, threads
from ponder.interfaces.ui.asking import continued
from ponder.interfaces.ui.draft import with_drafts
from ponder.interfaces.ui.manager import RunManager
from ponder.interfaces.ui.pages import STATUS_WORDS
from ponder.interfaces.ui.requests import (
    manager_of,
    missing,
    redirect_to,
    refused_status,
    run_limit,
    user_of,
    visible_run,
)

# Exports made at once: each reads every turn's checkpoint and typesets in a worker
# thread; more at once would take the threads the page's other checks need.
EXPORTING = asyncio.Semaphore(2)


async def run_page(request: Request) -> HTMLResponse:
    record = visible_run(request)
    if record is None:
        return missing()
    manager = manager_of(request)
    live = manager.is_live(record.thread_id)
    user = user_of(request)
    turns = [
        dataclasses.replace(turn, report=shown.report(user, turn.report))
        for turn in await history.turns(record.thread_id)
    ]
    logged = manager.run(record.thread_id).events
    began = threads.turn_began(logged)
    seen = logged[-1][0] if logged else 0
    return HTMLResponse(pages.run_page(shown.record(user, record), turns, live, began, seen))


async def events(request: Request) -> Response:
    record = visible_run(request)
    if record is None:
        return missing()
    after = _last_event_id(request)
    follow = manager_of(request).follow(record.thread_id, after)
    user = user_of(request)
    view = shown.view_for(user)

    run = manager_of(request).run(record.thread_id)

    def log() -> list[tuple[int, dict[str, Any]]]:
        return [(seq, shown.event(view, event)) for seq, event in run.events]

    async def stream() -> Any:
        async for item in with_drafts(follow, log):
            if isinstance(item, dict):  # the draft so far, rendered (draft.py)
                yield {"event": "draft", "data": json.dumps(item)}
                continue
            seq, event = item
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
    return _small_number(raw) or 0


async def log(request: Request) -> Response:
    record = visible_run(request)
    if record is None:
        return missing()
    run = manager_of(request).run(record.thread_id)
    view = shown.view_for(user_of(request))
    return JSONResponse([{"seq": seq, **shown.event(view, event)} for seq, event in run.events])


async def report_fragment(request: Request) -> Response:
    record = visible_run(request)
    if record is None:
        return missing()
    turns = await history.turns(record.thread_id, only=-1)
    report = shown.report(user_of(request), turns[-1].report if turns else None)
    if report is None:
        return HTMLResponse("", status_code=204)
    return HTMLResponse(report_body(report, turn_anchors(len(turns)), copy=True))


async def export(request: Request) -> Response:
    record = visible_run(request)
    if record is None:
        return missing()
    kind = request.path_params["kind"]
    turn = _turn_asked(request)  # None: the whole thread
    if turn is not None and turn > record.turns:
        said = f"This run has {record.turns} question{'s' if record.turns > 1 else ''}"
        return HTMLResponse(pages.message_page("No such question", f"{said}, not {turn}."), 404)
    user = user_of(request)
    if kind == "json":
        trail = shown.trail(user, await history.trail(record.thread_id, turn))
        if trail is not None:
            first = trail["turns"][0]["question"]  # the thread's, or the turn's
            return JSONResponse(trail, headers=_named(first, kind))
    if kind not in KINDS:
        known = ", ".join((*KINDS, "json"))
        return HTMLResponse(pages.message_page("No such export", f"Choose one of {known}."), 404)
    async with EXPORTING:
        reports = [shown.report(user, r) for r in await history.reports(record.thread_id, turn)]
        written = [report for report in reports if report is not None]
        if not written:
            said = f"Question {turn} of this run" if turn else "This run"
            return HTMLResponse(
                pages.message_page("Nothing to export", f"{said} has no report yet."), 404
            )
        # A PDF or a DOCX takes a tenth of a second or so: made beside the loop, not on it.
        content = await asyncio.to_thread(KINDS[kind].render, written)
    disposition = _named(written[0].topic, kind)  # after the thread's (or the turn's) question
    return Response(content, media_type=KINDS[kind].media_type, headers=disposition)


def _turn_asked(request: Request) -> int | None:
    return _small_number(request.query_params.get("turn", "")) or None


def _small_number(raw: str) -> int | None:
    """A count a request names (a turn, an event): ASCII digits, a few of them ("²" is a
    digit to ``str.isdigit`` and not to ``int``; a thousand digits are refused by ``int``)."""
    return int(raw) if re.fullmatch(r"[0-9]{1,9}", raw) else None


def _named(question: str, kind: str) -> dict[str, str]:
    """As the CLI names a report: after its question."""
    return {"content-disposition": f'attachment; filename="{slug(question)}.{kind}"'}


async def act(request: Request) -> Response:
    record = visible_run(request)
    if record is None:
        return missing()
    thread_id, action = record.thread_id, request.path_params["action"]
    manager = manager_of(request)
    form = await request.form()
    user = user_of(request)
    by, limit = user.name, run_limit(user)
    try:
        if action == "stop":
            manager.stop(thread_id)
        elif action in ("resume", "answer", "follow-up"):
            # A new request: a caller's settings are checked again against today's.
            anew = await asyncio.to_thread(continued, user, thread_id, record.config)
            if action == "follow-up":
                _finished(record.status, manager.is_live(thread_id))
                question = str(form.get("topic") or "")
                turn = record.turns + 1
                manager.follow_up(thread_id, question, by, limit, anew, turn=turn)
                return redirect_to(f"/runs/{thread_id}#turn-{turn}")  # the new turn, live
            else:
                answer = str(form.get("answer") or "").strip() or None
                manager.resume(thread_id, answer, by, limit, anew, turn=record.turns)
        elif action == "delete":
            return await _delete(request, thread_id)
        else:
            return HTMLResponse(pages.message_page("Unknown action", action), 404)
    except PonderError as exc:
        return HTMLResponse(
            pages.message_page(
                "Cannot do that", shown.text(user_of(request), str(exc)), f"/runs/{thread_id}"
            ),
            refused_status(exc, 409),
        )
    if action == "stop":
        await _stopped(manager, thread_id)
    return redirect_to(f"/runs/{thread_id}")


def _finished(status: str, live: bool) -> None:
    """A follow-up builds on a finished run: another tab may still offer the form."""
    if live or status != "done":
        now = "still running" if live else STATUS_WORDS.get(status, status)
        raise InvalidInputError(
            f"This run is {now}: a follow-up builds on a finished run. "
            "Wait for it to finish (or press Resume), then ask again."
        )


async def _stopped(manager: RunManager, thread_id: str) -> None:
    """Wait (briefly) for the cancelled run to record that it stopped."""
    for _ in range(50):
        if not manager.is_live(thread_id):
            return
        await asyncio.sleep(0.05)


async def _delete(request: Request, thread_id: str) -> Response:
    manager = manager_of(request)
    if manager.is_live(thread_id):
        raise InvalidInputError("This run is still running — stop it before deleting it.")
    await history.delete(thread_id)
    manager.forget(thread_id)
    return redirect_to("/runs")
