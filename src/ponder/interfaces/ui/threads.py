"""A run's page as a conversation: each turn (the first question, then each follow-up)
in a section of its own with its question, its report and its sources, whose ids do not
collide with another turn's; the live turn last. And what the history and the page's
live view need to know of a thread: its questions, and where its latest turn's events begin.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ponder.api.history import Turn
from ponder.interfaces.exports import KINDS
from ponder.interfaces.html import report_body, turn_anchors


def earlier_turns(thread: str, turns: Sequence[Turn]) -> str:
    """The finished turns before the latest, each with its question and its report."""
    return "\n".join(
        f'<section class="turn" id="turn-{turn.number}" data-turn="{turn.number}">\n'
        f"{asked(thread, turn, len(turns))}\n"
        f'<article class="report" data-turn="{turn.number}">{_written(turn)}</article>\n'
        "</section>"
        for turn in turns[:-1]
    )


def asked(thread: str, turn: Turn, count: int, *, exports: bool = True) -> str:
    """A turn's question and its own exports; nothing when the run has one turn (its
    question is the page's title, and the page's exports are the turn's)."""
    if count < 2:
        return ""
    own = export_menu(thread, "Export this turn", turn.number) if exports else ""
    word = "Question" if turn.number == 1 else "Follow-up"
    return (
        f'<header class="asked"><p><span class="turn-number">{word} {turn.number}</span> '
        f'<q class="question">{escape(turn.question)}</q></p>{own}</header>'
    )


def export_menu(
    thread: str, label: str, turn: int | None = None, *, shown: bool = True, element: str = ""
) -> str:
    """An Export menu: each format (interfaces/exports) with what it holds, and the JSON
    trail; of the whole thread, or of one ``turn``. Folded, so it takes one line."""
    formats = [(kind.name, kind.label, kind.about) for kind in KINDS.values()]
    formats.append(("json", "JSON trail", "queries, sources, citations"))
    asked = f"?turn={turn}" if turn else ""
    items = "".join(
        f'<li><a href="/runs/{thread}/export.{name}{asked}" download>{title}</a>'
        f' <span class="about">{about}</span></li>'
        for name, title, about in formats
    )
    named = f' id="{element}"' if element else ""
    return (
        f'<details class="exports"{named}{"" if shown else " hidden"}>'
        f'<summary>{label}</summary><ul class="menu">{items}</ul></details>'
    )


def _written(turn: Turn) -> str:
    if turn.report is None:
        return '<p class="hint">This turn has no report.</p>'
    return report_body(turn.report, turn_anchors(turn.number), copy=True)


def turn_began(events: Sequence[tuple[int, dict[str, Any]]]) -> tuple[int, int]:
    """The latest turn in a run's log, and the seq after which its events begin (0: the
    run has one turn): the page's live view replays that turn only. A turn begins with a
    "running" status that names a new turn, or, in a log from before turns were named,
    that follows "done"."""
    began, turn, status = 0, 1, ""
    for seq, event in events:
        if event.get("kind") != "status":
            continue
        named = event.get("turn")
        new = named != turn if named else status == "done"
        if event.get("status") == "running" and new and seq > 1:
            began, turn = seq - 1, int(named or turn + 1)
        status = str(event.get("status") or "")
    return began, turn


def matches(record: Any, query: str) -> bool:
    """Whether a run's history entry holds every word of ``query``, anywhere in a word,
    in its first question, a follow-up's or its id, case and accents aside."""
    said = " ".join([record.topic, *record.questions, record.thread_id])
    text = _folded(said)
    return all(word in text for word in _folded(query).split())


def _folded(text: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
