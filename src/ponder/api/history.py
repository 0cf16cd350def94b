"""The API for the run history: recent runs (here, or on a LangGraph Server), one run,
where a run's report was saved, a finished run's report and trail, and forgetting a run —
what ``ponder runs``, ``ponder resume``, the CLI's report writer and ``ponder ui`` call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ponder.api import server_url
from ponder.core.result import Report

if TYPE_CHECKING:
    from ponder.services.storage.runs import RunRecord


def runs(limit: int = 20, server: str | None = None) -> list[RunRecord]:
    """Recent runs, newest first: this machine's history or, with ``server`` (or
    ``PONDER_SERVER``), that server's ponder runs."""
    if remote := server_url(server):
        from ponder.api.remote import remote_runs

        return asyncio.run(remote_runs(remote, max(limit, 1)))
    from ponder.services.storage import runs as history

    return history.recent(max(limit, 1))


def run(thread_id: str) -> RunRecord | None:
    """This machine's record of one run, or None."""
    from ponder.services.storage import runs as history

    return history.get(thread_id)


def saved(thread_id: str, path: str) -> None:
    """Record that the run's report was written to ``path``."""
    from ponder.services.storage import runs as history

    history.finish(thread_id, "done", output=path)


async def report(thread_id: str) -> Report | None:
    """A finished run's report, read from its checkpoint (nothing runs); None when the run
    has none yet (it is running, waiting, stopped or failed before writing it)."""
    values = await _values(thread_id)
    record = run(thread_id)
    if not values.get("report") or record is None:
        return None
    return Report.from_state(record.topic, thread_id, values, record.updated - record.created)


async def trail(thread_id: str) -> dict[str, Any] | None:
    """The whole trail of a run as JSON-ready data: its settings, every query it ran, the
    sources it read with their passages, the report and each citation with its evidence."""
    record = run(thread_id)
    if record is None:
        return None
    values = await _values(thread_id)
    written = await report(thread_id)
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
    from ponder.services.storage import runs as history
    from ponder.services.storage.checkpoints import open_checkpointer

    if history.get(thread_id) is None:
        return False
    async with open_checkpointer() as saver:
        await saver.adelete_thread(thread_id)
    return history.delete(thread_id)


async def _values(thread_id: str) -> dict[str, Any]:
    from langchain_core.runnables import RunnableConfig

    from ponder.graphs.main import graph_builder
    from ponder.services.storage.checkpoints import open_checkpointer

    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    async with open_checkpointer() as saver:
        snapshot = await graph_builder().compile(checkpointer=saver).aget_state(config)
    return dict(snapshot.values or {})
