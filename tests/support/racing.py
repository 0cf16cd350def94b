"""Machines sharing one run history, as tests simulate them: each a RunHistory with its own
host name and process space (so none sees another's process ids), claiming at one instant."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import Any, TypeVar

from ponder.core.errors import RunBusyError
from ponder.services.storage.history_db import Database
from ponder.services.storage.runs import RunHistory
from ponder.settings.environment import read_environment

T = TypeVar("T")


def machine(name: str, **settings: Any) -> RunHistory:
    """Another machine on the test's run history (its data folder, or its database)."""
    here = read_environment().machine
    history = RunHistory(here.model_copy(update={"host_id": name, **settings}))
    history.pid_space = f"processes of {name}"  # not ours to see
    return history


def race(claimants: list[Callable[[], T]]) -> tuple[list[T], list[RunBusyError]]:
    """Run every claimant at once (a barrier releases them together, each on its own
    thread and connection): what the winners got, and the losers' refusals."""
    start = threading.Barrier(len(claimants))

    def attempt(claim: Callable[[], T]) -> T:
        start.wait()
        return claim()

    with ThreadPoolExecutor(len(claimants)) as pool:
        futures = [pool.submit(attempt, claim) for claim in claimants]
    won: list[T] = []
    lost: list[RunBusyError] = []
    for future in futures:
        try:
            won.append(future.result())
        except RunBusyError as refused:
            lost.append(refused)
    return won, lost


def run_history_sql(query: str, params: tuple[Any, ...] = ()) -> Any:
    """Read or change the test's run history behind ponder's back (``{runs}``, ``{now}``:
    as in ponder's queries), e.g. to let a lease run out without waiting for it; the first
    row a query returns."""
    database = Database(read_environment().machine)
    with closing(database.conn):
        cursor = database.execute(query, params)
        row = cursor.fetchone() if cursor.description else None
        database.conn.commit()
        return row
