"""The routes of one run: its page, its live events, its log, its report, its exports,
and what may be done to it (stop, resume, answer, follow up, delete)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ponder.core.errors import PonderError
from ponder.core.topic import slug
from ponder.interfaces.exports import KINDS
from ponder.interfaces.html import report_body, turn_anchors
from ponder.interfaces.ui import pages, shown, threads
from ponder.interfaces.ui.draft import with_drafts
from ponder.interfaces.ui.requests import (
    missing,
    redirect_to,
    refused_status,
    runs_of,
    user_of,
    visible_run,
)

# Exports made at once: each reads every turn's checkpoint and typesets in a worker
# thread; more at once would take the threads the page's other checks need.
EXPORTING = asyncio.Semaphore(2)
log_of_server = logging.getLogger(__name__)


async def run_page(request: Request) -> HTMLResponse:
    record = await visible_run(request)
    if record is None:
        return missing()
    runs, user = runs_of(request), user_of(request)
    live = await runs.live(user, record)
    turns = [
        dataclasses.replace(turn, report=shown.report(user, turn.report))
        for turn in await runs.turns(user, record)
    ]
    logged = await runs.log(user, record)
    began = threads.turn_began(logged)
    seen = logged[-1][0] if logged else 0
    page = pages.run_page(
        shown.record(user, record), turns, live, began, seen, follow_ups=runs.follow_ups
    )
    return HTMLResponse(page)


async def events(request: Request) -> Response:
    record = await visible_run(request)
    if record is None:
        return missing()
    after = _last_event_id(request)
    runs, user = runs_of(request), user_of(request)
    view = shown.view_for(user)
    seen: list[tuple[int, dict[str, Any]]] = []  # the run's events so far, for the draft

    async def follow() -> Any:
        # From the start: a tab that reconnects mid-draft gets the whole draft, not its tail.
        async for entry in runs.follow(user, record.thread_id, 0):
            seen.append(entry)
            if entry[0] > after:
                yield entry

    def log() -> list[tuple[int, dict[str, Any]]]:
        return [(seq, shown.event(view, event)) for seq, event in seen]

    async def stream() -> Any:
        try:
            async for item in with_drafts(follow(), log):
                if isinstance(item, dict):  # the draft so far, rendered (draft.py)
                    yield {"event": "draft", "data": json.dumps(item)}
                    continue
                seq, event = item
                data = json.dumps(shown.event(view, event))
                yield {"id": str(seq), "event": "progress", "data": data}
            # How the run stands now: a replayed log of a run killed mid-way ends on "running".
            ended = shown.record(user, await runs.record(user, record.thread_id) or record)
        except PonderError as exc:  # the engine went away: the tab reconnects, from its last
            log_of_server.warning("a run's events stopped: %s", exc)
            return
        yield {
            "event": "end",
            "data": json.dumps({"status": ended.status, "message": ended.message}),
        }

    return EventSourceResponse(stream(), ping=10)


def _last_event_id(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    return _small_number(raw) or 0


async def log(request: Request) -> Response:
    record = await visible_run(request)
    if record is None:
        return missing()
    user = user_of(request)
    logged = await runs_of(request).log(user, record)
    view = shown.view_for(user)
    return JSONResponse([{"seq": seq, **shown.event(view, event)} for seq, event in logged])


async def report_fragment(request: Request) -> Response:
    record = await visible_run(request)
    if record is None:
        return missing()
    user = user_of(request)
    turns = await runs_of(request).turns(user, record, only=-1)
    report = shown.report(user, turns[-1].report if turns else None)
    if report is None:
        return HTMLResponse("", status_code=204)
    return HTMLResponse(report_body(report, turn_anchors(len(turns)), copy=True))


async def export(request: Request) -> Response:
    record = await visible_run(request)
    if record is None:
        return missing()
    kind = request.path_params["kind"]
    turn = _turn_asked(request)  # None: the whole thread
    if turn is not None and turn > record.turns:
        said = f"This run has {record.turns} question{'s' if record.turns > 1 else ''}"
        return HTMLResponse(pages.message_page("No such question", f"{said}, not {turn}."), 404)
    runs, user = runs_of(request), user_of(request)
    if kind == "json":
        trail = shown.trail(user, await runs.trail(user, record, turn))
        if trail is not None:
            first = trail["turns"][0]["question"]  # the thread's, or the turn's
            return JSONResponse(trail, headers=_named(first, kind))
    if kind not in KINDS:
        known = ", ".join((*KINDS, "json"))
        return HTMLResponse(pages.message_page("No such export", f"Choose one of {known}."), 404)
    async with EXPORTING:
        kept = await runs.reports(user, record, turn)
        reports = [shown.report(user, report) for report in kept]
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
    record = await visible_run(request)
    if record is None:
        return missing()
    thread_id, action = record.thread_id, request.path_params["action"]
    runs, user = runs_of(request), user_of(request)
    form = await request.form()
    try:
        if action == "stop":
            await runs.stop(user, thread_id)
        elif action == "follow-up":
            turn = await runs.follow_up(user, record, str(form.get("topic") or ""))
            return redirect_to(f"/runs/{thread_id}#turn-{turn}")  # the new turn, live
        elif action in ("resume", "answer"):
            answer = str(form.get("answer") or "").strip() or None
            await runs.resume(user, record, answer)
        elif action == "delete":
            await runs.delete(user, thread_id)
            return redirect_to("/runs")
        else:
            return HTMLResponse(pages.message_page("Unknown action", action), 404)
    except PonderError as exc:
        return HTMLResponse(
            pages.message_page("Cannot do that", shown.text(user, str(exc)), f"/runs/{thread_id}"),
            refused_status(exc, 409),
        )
    return redirect_to(f"/runs/{thread_id}")
