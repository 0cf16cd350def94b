"""A run's streamed draft, as the page shows it: the Markdown the model wrote so far,
rendered by the report's own renderer (:func:`ponder.interfaces.html.markdown_to_html`, raw
HTML escaped), so the draft reads as the report will, tables included.

The draft is not stored: it is what the run's event log says since the run's last start
(:func:`draft_text`). The page asks for it again whenever new text arrived (one
request at a time), so a busy page asks less often instead of falling behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ponder.interfaces.html import markdown_to_html


def draft_text(events: Iterable[tuple[int, dict[str, Any]]]) -> tuple[str, int]:
    """The draft's Markdown after these events, and the last seq it holds. A part (the
    report, or one of a deep report's sections) starts at ``drafting``; ``discarded`` drops
    the part being written, ``cut`` keeps its first ``keep`` characters."""
    done: list[str] = []  # the parts written before the one being written
    part = ""
    last = 0
    for seq, event in events:
        kind = event.get("kind")
        data = event.get("data") or {}
        if kind == "status" and event.get("status") == "running":
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


def _joined(done: list[str], part: str) -> list[str]:
    return [*done, part] if part.strip() else done


def draft_html(markdown: str) -> str:
    """The draft rendered: no citation is a link yet (the report's numbers come with it)."""
    return markdown_to_html(markdown, citable=set()) if markdown.strip() else ""


def _count(value: Any) -> int:
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return 0
