"""A run's streamed draft, as the page shows it: the Markdown the model wrote so far,
rendered by the report's own renderer (:func:`ponder.interfaces.html.markdown_to_html`, raw
HTML escaped), so the draft reads as the report will, tables included.

The draft is not stored: it is what the run's event log says since the run's last start
(:func:`draft_text`). A tab's event stream carries it (:func:`with_drafts`): after the
events that changed it, once the stream has caught up, as one ``draft`` message. The blocks
the model has finished (up to its last blank line) are rendered and sent once
(:class:`DraftRenderer`); each message renders only the block being written, so neither the
server nor the tab lays out the whole draft again per token. The next rendering still waits
ten times as long as the last took (at least 50 ms): the renderer keeps to a tenth of the
server's time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

from ponder.interfaces.html import markdown_to_html

Entry = tuple[int, dict[str, Any]]
CHANGES_IT = frozenset({"drafting", "token", "discarded", "cut"})
RENDER_SHARE = 10  # wait this many times the last rendering's time before the next
RENDER_GAP = 0.05  # s: and at least this long (a redraw costs the tab a layout of it all)


def draft_text(events: Iterable[Entry]) -> tuple[str, int]:
    """The draft's Markdown after these events, and the last seq it holds. A part (the
    report, or one of a deep report's sections) starts at ``drafting``; ``discarded`` drops
    the part being written, ``cut`` keeps its first ``keep`` characters."""
    done: list[str] = []  # the parts written before the one being written
    part = ""
    last = 0
    for seq, event in events:
        kind = event.get("kind")
        data = event.get("data") or {}
        if _starts_anew(event):
            done, part = [], ""  # a resume or a follow-up writes a draft of its own
        elif kind == "drafting":
            done, part = _joined(done, part), ""
        elif kind == "token":
            part += str(data.get("text") or "")
        elif kind == "discarded":
            part = ""
        elif kind == "cut":
            part = part[: _count(data.get("keep"))]
        else:
            continue
        last = seq
    return "\n\n".join(_joined(done, part)), last


def settled_end(text: str) -> int:
    """Where the draft's finished blocks end: after its last blank line outside a code
    fence that a line starting flush left follows (an indented one may continue a list
    item). What comes before it no longer changes as the model writes on."""
    end, at, fenced, blank_after = 0, 0, False, -1
    for line in text.splitlines(keepends=True):
        if blank_after >= 0 and line[:1] not in (" ", "\t", "\n", "\r"):
            end = blank_after
        blank_after = -1
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        at += len(line)
        if not fenced and not line.strip() and line.endswith("\n"):
            blank_after = at
    return end


class DraftRenderer:
    """One tab's draft: the finished blocks it has been sent, and what to send next — the
    newly finished blocks to append (``settled``, or all of them again with ``reset`` when
    the draft was discarded, cut or begun anew) and the block being written (``writing``)."""

    def __init__(self) -> None:
        self.settled = ""  # the Markdown of the blocks the tab holds
        self.sent = False  # a new stream (a reconnect): the tab's blocks are replaced

    def render(self, text: str) -> dict[str, Any]:
        end = settled_end(text)
        reset = not self.sent or not text.startswith(self.settled) or end < len(self.settled)
        self.sent = True
        start = 0 if reset else len(self.settled)
        added = draft_html(text[start:end]) if end > start else ""
        if reset or end > start:
            self.settled = text[:end]
        writing = draft_html(text[len(self.settled) :])
        return {"reset": reset, "settled": added, "writing": writing, "chars": len(text)}


def draft_html(markdown: str) -> str:
    """The draft rendered: no citation is a link yet (the report's numbers come with it)."""
    return markdown_to_html(markdown, citable=set()) if markdown.strip() else ""


async def with_drafts(
    events: AsyncIterator[Entry], log: Callable[[], list[Entry]]
) -> AsyncIterator[Entry | dict[str, Any]]:
    """``events`` as they come, with the rendered draft (:meth:`DraftRenderer.render`, and
    ``seq``, the last event it holds) after those that changed it, once no event is
    waiting; ``log``: the run's events so far, as this reader is shown them."""
    changed = False
    allowed_at = 0.0
    renderer = DraftRenderer()
    waiting: asyncio.Future[Entry] | None = None
    try:
        while True:
            if waiting is None:
                waiting = asyncio.ensure_future(anext(events))
            pause = max(allowed_at - time.monotonic(), 0.0) if changed else None
            done, _ = await asyncio.wait({waiting}, timeout=pause)
            if not done:  # caught up, and the draft changed: send it
                started = time.monotonic()
                yield await _rendered(renderer, log())
                took = time.monotonic() - started
                allowed_at = time.monotonic() + max(RENDER_SHARE * took, RENDER_GAP)
                changed = False
                continue
            try:
                entry = waiting.result()
            except StopAsyncIteration:
                return
            waiting = None
            changed = changed or entry[1].get("kind") in CHANGES_IT or _starts_anew(entry[1])
            yield entry
    finally:
        if waiting is not None:
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await waiting


async def _rendered(renderer: DraftRenderer, events: list[Entry]) -> dict[str, Any]:
    text, seq = draft_text(events)
    return {**renderer.render(text), "seq": seq}


def _starts_anew(event: dict[str, Any]) -> bool:
    return event.get("kind") == "status" and event.get("status") == "running"


def _joined(done: list[str], part: str) -> list[str]:
    return [*done, part] if part.strip() else done


def _count(value: Any) -> int:
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return 0
