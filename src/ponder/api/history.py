"""The API for the run history: recent runs (here, or on a LangGraph Server), one run,
where a run's report was saved, a finished run's report and trail, and forgetting a run —
what ``ponder runs``, ``ponder resume``, the CLI's report writer and ``ponder ui`` call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ponder.api import server_url
from ponder.core.result import Report
from ponder.settings.environment import Environment, read_environment

if TYPE_CHECKING:
    from ponder.services.storage.runs import RunHistory, RunRecord


def runs(limit: int = 20, server: str | None = None) -> list[RunRecord]:
    """Recent runs, newest first: this machine's history or, with ``server`` (or
    ``PONDER_SERVER``), that server's ponder runs."""
    environment = read_environment()
    if remote := server_url(server, environment.machine):
        from ponder.api.remote import remote_runs

        token = environment.secret("PONDER_SERVER_TOKEN")
        return asyncio.run(remote_runs(remote, token, max(limit, 1)))
    return _history(environment).recent(max(limit, 1))


def run(thread_id: str) -> RunRecord | None:
    """This machine's record of one run, or None."""
    return _history(read_environment()).get(thread_id)


def saved(thread_id: str, path: str) -> None:
    """Record that the run's report was written to ``path``."""
    _history(read_environment()).finish(thread_id, "done", output=path)


async def report(thread_id: str) -> Report | None:
    """A finished run's report, read from its checkpoint (nothing runs); None when the run
    has none yet (it is running, waiting, stopped or failed before writing it)."""
    return await _report(read_environment(), thread_id)


async def trail(thread_id: str) -> dict[str, Any] | None:
    """The whole trail of a run as JSON-ready data: its settings, every query it ran, the
    sources it read with their passages, the report and each citation with its evidence."""
    environment = read_environment()
    record = _history(environment).get(thread_id)
    if record is None:
        return None
    values = await _values(environment, thread_id)
    written = await _report(environment, thread_id)
    return {
        "thread_id": thread_id,
        "topic": record.topic,
        "status": record.status,
        "created": record.created,
        "updated": record.updated,
        "config": record.config,
        "queries": list(values.get("queries_run") or []),
        "sources": [dict(source) for source in values.get("sources") or []],
        "report": written.model_dump() if written else None,
    }


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


async def _report(environment: Environment, thread_id: str) -> Report | None:
    values = await _values(environment, thread_id)
    record = _history(environment).get(thread_id)
    if not values.get("report") or record is None:
        return None
    return Report.from_state(record.topic, thread_id, values, record.updated - record.created)


async def _values(environment: Environment, thread_id: str) -> dict[str, Any]:
    from langchain_core.runnables import RunnableConfig

    from ponder.graphs.main import graph_builder
    from ponder.services.storage.checkpoints import open_checkpointer

    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    async with open_checkpointer(environment.machine) as saver:
        snapshot = await graph_builder().compile(checkpointer=saver).aget_state(config)
    return dict(snapshot.values or {})
