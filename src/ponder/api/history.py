"""The API for the run history: recent runs (here, or on a LangGraph Server), one run,
where a run's report was saved, a run's turns (its question and each follow-up) with their
reports, its trail, and forgetting a run — what ``ponder runs``, ``ponder resume``, the
CLI's report writer, the exports and ``ponder ui`` call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ponder.api import server_url
from ponder.api.turns import Turn, trail_data
from ponder.core.result import Report
from ponder.core.stats import since
from ponder.settings.environment import Environment, read_environment

if TYPE_CHECKING:
    from ponder.services.storage.runs import RunHistory, RunRecord, TurnRecord


def runs(limit: int = 20, server: str | None = None) -> list[RunRecord]:
    """Recent runs, newest first: this machine's history or, with ``server`` (or
    ``PONDER_SERVER``), that server's ponder runs."""
    environment = read_environment()
    if remote := server_url(server, environment.machine):
        from ponder.api.engine import remote_runs

        token = environment.secret("PONDER_SERVER_TOKEN")
        return asyncio.run(remote_runs(remote, token, max(limit, 1)))
    return _history(environment).recent(max(limit, 1))


def run(thread_id: str) -> RunRecord | None:
    """This machine's record of one run, or None."""
    return _history(read_environment()).get(thread_id)


def saved(thread_id: str, path: str) -> None:
    """Record that the run's report was written to ``path``."""
    _history(read_environment()).saved(thread_id, path)


async def turns(thread_id: str, only: int | None = None) -> list[Turn]:
    """A run's turns in order, each with its report read back from the checkpoint it
    finished in (nothing runs); empty for a run not recorded. ``only``: the report of
    that turn alone is read (from 1; -1: the latest), the others' are None."""
    environment = read_environment()
    record = _history(environment).get(thread_id)
    if record is None:
        return []
    return [
        Turn(
            kept.number,
            kept.question,
            kept.started,
            kept.ended,
            _report_of(thread_id, kept, values),
        )
        for kept, values in await _turn_states(environment, record, only)
    ]


async def reports(thread_id: str, turn: int | None = None) -> list[Report]:
    """What an export of a run holds: the report of each finished turn, in order, or of
    turn ``turn`` (from 1) alone; empty when there is none."""
    return [
        each.report
        for each in await turns(thread_id, turn)
        if each.report is not None and turn in (None, each.number)
    ]


async def report(thread_id: str) -> Report | None:
    """A finished run's report (of its latest turn), read from its checkpoint (nothing
    runs); None when that turn has none yet (it is running, waiting, stopped or failed
    before writing it)."""
    found = await turns(thread_id, only=-1)
    return found[-1].report if found else None


async def trail(thread_id: str, turn: int | None = None) -> dict[str, Any] | None:
    """The whole trail of a run as JSON-ready data: its settings, every query it ran, the
    sources it read with their passages, and each turn's question and report with each
    citation's evidence (``report``: the latest turn's). ``turn``: that turn alone, as
    the thread stood when it finished."""
    environment = read_environment()
    record = _history(environment).get(thread_id)
    if record is None:
        return None
    states = await _turn_states(environment, record, turn)
    chosen = [(kept, values) for kept, values in states if turn in (None, kept.number)]
    if not chosen:
        return None
    values = chosen[-1][1] or {}
    if not values and chosen[-1][0].number == len(states):
        # The latest turn did not finish (it failed, or runs): what it read so far is in
        # the thread's latest state, not in a checkpoint it finished in.
        values = await _latest_state(environment, thread_id)
    turns = [
        Turn(kept.number, kept.question, kept.started, kept.ended, _report_of(thread_id, kept, got))
        for kept, got in chosen
    ]
    return trail_data(record, turns, values)


async def delete(thread_id: str) -> bool:
    """Forget a run: its history entry and its checkpoints. False when there was none."""
    from ponder.services.storage.checkpoints import open_checkpointer

    environment = read_environment()
    history = _history(environment)
    if history.get(thread_id) is None:
        return False
    async with open_checkpointer(environment.machine) as saver:
        await saver.adelete_thread(thread_id)
    return history.delete(thread_id)


def _history(environment: Environment) -> RunHistory:
    from ponder.services.storage.runs import RunHistory

    return RunHistory(environment.machine)


def _report_of(thread_id: str, turn: TurnRecord, values: dict[str, Any] | None) -> Report | None:
    if not values or not values.get("report"):
        return None
    ended = turn.ended if turn.ended is not None else turn.started
    found = Report.from_state(turn.question, thread_id, values, ended - turn.started)
    return found.model_copy(update={"turn": turn.number})


async def _turn_states(
    environment: Environment, record: RunRecord, only: int | None = None
) -> list[tuple[TurnRecord, dict[str, Any] | None]]:
    """Each turn with the graph state it finished in: read at its checkpoint; the latest
    state for the last turn of a finished run from before turns were kept; None while a
    turn has not finished. A turn's statistics are its own: the thread's less those of the
    turn before it. ``only``: that turn's state alone (from 1; -1: the latest)."""
    from ponder.graphs.main import graph_builder
    from ponder.services.storage.checkpoints import open_checkpointer

    kept = _history(environment).turns(record.thread_id)
    wanted = len(kept) + 1 + only if only is not None and only < 0 else only
    found: list[tuple[TurnRecord, dict[str, Any] | None]] = []
    async with open_checkpointer(environment.machine) as saver:
        graph = graph_builder().compile(checkpointer=saver)
        earlier: dict[str, Any] | None = None
        for index, turn in enumerate(kept):
            last = index == len(kept) - 1
            needed = wanted in (None, turn.number, turn.number + 1)  # the next one's "before"
            values = await _state_at(graph, record, turn, last) if needed else None
            own = values and {**values, "stats": since(values.get("stats"), earlier)}
            found.append((turn, own if wanted in (None, turn.number) else None))
            earlier = values.get("stats") if values else None
    return found


async def _latest_state(environment: Environment, thread_id: str) -> dict[str, Any]:
    from langchain_core.runnables import RunnableConfig

    from ponder.graphs.main import graph_builder
    from ponder.services.storage.checkpoints import open_checkpointer

    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    async with open_checkpointer(environment.machine) as saver:
        snapshot = await graph_builder().compile(checkpointer=saver).aget_state(config)
    return dict(snapshot.values or {})


async def _state_at(graph: Any, record: RunRecord, turn: TurnRecord, last: bool) -> Any:
    """The state a turn finished in, or None while it has not (the latest state stands in
    for the last turn of a finished run from before turns were kept)."""
    from langchain_core.runnables import RunnableConfig

    if turn.checkpoint_id is None and not (last and record.status == "done"):
        return None
    at = {"checkpoint_id": turn.checkpoint_id} if turn.checkpoint_id else {}
    config: RunnableConfig = {"configurable": {"thread_id": record.thread_id, **at}}
    snapshot = await graph.aget_state(config)
    return dict(snapshot.values or {})
