"""The API for the run history: recent runs (here, or on a LangGraph Server), one run, and
where a run's report was saved — what ``ponder runs``, ``ponder resume`` and the CLI's
report writer call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ponder.api import server_url

if TYPE_CHECKING:
    from ponder.services.storage.runs import RunRecord


def runs(limit: int = 20, server: str | None = None) -> list[RunRecord]:
    """Recent runs, newest first: this machine's history or, with ``server`` (or
    ``PONDER_SERVER``), that server's ponder runs."""
    if remote := server_url(server):
        from ponder.remote import remote_runs

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
