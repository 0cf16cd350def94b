"""A thread's turns on an engine (its question, then each follow-up), kept in the thread's
own metadata, so every door process reads the same conversation.

A follow-up is a run whose input is the new question as a chat message (the graph starts a
new turn on the thread from it: :mod:`ponder.nodes.take_question`). The door that asks it
adds to the thread's ``ponder_turns`` the question, the run that began the turn, and the
checkpoint the turn before it finished in: that turn's report is read back from there, the
latest turn's from the thread's state, and each turn's cost is its own (the thread's less
the turn before's), as for a local run's turns (:func:`ponder.api.history.turns`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ponder.core.result import Report
from ponder.core.stats import since

if TYPE_CHECKING:
    from ponder.api.turns import Turn
    from ponder.services.storage.runs import RunRecord

TURNS_KEY = "ponder_turns"


def follow_ups(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    """The thread's follow-ups, in order: each a question, its first run and the checkpoint
    the turn before it ended in."""
    kept = metadata.get(TURNS_KEY)
    return [dict(turn) for turn in kept if isinstance(turn, dict)] if isinstance(kept, list) else []


def questions(metadata: dict[str, Any]) -> list[str]:
    """Each turn's question, the first (the thread's topic) first."""
    first = str(metadata.get("ponder_topic") or "")
    return [first, *(str(turn.get("question") or "") for turn in follow_ups(metadata))]


def turn_starts(metadata: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """The run that began each follow-up: its turn's number, and its question."""
    return {
        str(turn.get("run")): (number, str(turn.get("question") or ""))
        for number, turn in enumerate(follow_ups(metadata), start=2)
    }


async def read_turns(
    client: Any, record: RunRecord, metadata: dict[str, Any], only: int | None = None
) -> list[Turn]:
    """Each turn with its report (None: not finished); ``only``: that turn's report alone
    is read (from 1; -1: the latest)."""
    from ponder.api.turns import Turn

    asked = questions(metadata)
    later = follow_ups(metadata)
    worked = await worked_by_turn(client, record.thread_id, metadata)
    ends = [turn.get("after") for turn in later]  # where turns 1..n-1 finished
    wanted = len(asked) + 1 + only if only is not None and only < 0 else only
    found: list[Turn] = []
    earlier: dict[str, Any] | None = None
    for number, question in enumerate(asked, start=1):
        last = number == len(asked)
        needed = wanted in (None, number, number + 1)  # the next one's "before" too
        values = await _values_at(client, record, ends, number, last) if needed else None
        report = None
        if values and values.get("report") and wanted in (None, number):
            own = {**values, "stats": since(values.get("stats"), earlier)}
            made = Report.from_state(question, record.thread_id, own, worked.get(number, 0.0))
            report = made.model_copy(update={"turn": number})
        earlier = values.get("stats") if values else None
        ended = record.updated if report is not None else None
        found.append(Turn(number, question, record.created, ended, report))
    return found


async def latest_report(client: Any, thread_id: str, metadata: dict[str, Any]) -> Report | None:
    """The report of the thread's latest turn, its cost its own (None: no report yet)."""
    values = dict((await client.threads.get_state(thread_id)).get("values") or {})
    if not values.get("report"):
        return None
    asked, later = questions(metadata), follow_ups(metadata)
    earlier = None
    if later and later[-1].get("after"):
        before = await client.threads.get_state(thread_id, checkpoint_id=str(later[-1]["after"]))
        earlier = (before.get("values") or {}).get("stats")
    worked = await worked_by_turn(client, thread_id, metadata)
    own = {**values, "stats": since(values.get("stats"), earlier)}
    made = Report.from_state(asked[-1], thread_id, own, worked.get(len(asked), 0.0))
    return made.model_copy(update={"turn": len(asked)})


async def worked_by_turn(client: Any, thread_id: str, metadata: dict[str, Any]) -> dict[int, float]:
    """How long the engine worked on each turn: its runs' times, from each one's creation
    to its last change (a wait for a resume or an answer is not counted)."""
    from ponder.api.remote import epoch

    starts = turn_starts(metadata)
    runs = await client.runs.list(thread_id, limit=100)
    worked: dict[int, float] = {}
    turn = 1
    for run in sorted(runs, key=lambda run: epoch(run.get("created_at"))):
        turn = starts.get(str(run["run_id"]), (turn, ""))[0]
        span = epoch(run.get("updated_at")) - epoch(run.get("created_at"))
        worked[turn] = worked.get(turn, 0.0) + max(span, 0.0)
    return worked


async def _values_at(
    client: Any, record: RunRecord, ends: list[Any], number: int, last: bool
) -> dict[str, Any] | None:
    """The state turn ``number`` finished in: at the checkpoint the next turn began from;
    the thread's state for the latest turn of a finished run."""
    if last:
        if record.status != "done":
            return None
        state = await client.threads.get_state(record.thread_id)
    else:
        checkpoint = ends[number - 1]
        if not checkpoint:
            return None
        state = await client.threads.get_state(record.thread_id, checkpoint_id=str(checkpoint))
    return dict(state.get("values") or {})


def checkpoint_of(state: dict[str, Any]) -> str | None:
    """The checkpoint a thread's state is at (where its finished turn ended)."""
    found = (state.get("checkpoint") or {}).get("checkpoint_id")
    return str(found) if found else None
