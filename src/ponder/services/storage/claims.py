"""Who is running a run: a claim, taken in one statement, held by a lease.

Several machines may share one run history (PostgreSQL), and two of them may resume the
same run at once. So a process takes a run with one statement that sets it running only
where no one else holds it (:data:`CLAIMABLE`): the database decides, and exactly one of
two claimants wins. The winner renews its lease while the run goes on; a run whose lease
ran out (its process or its machine died) may be claimed again. On the machine that ran
it, a process id that is gone says so at once, without waiting for the lease.

Leases are timed by the database's clock (``{now}`` in a query), so machines need not
agree on the time.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from ponder.core.errors import RunBusyError, RunTakenOverError, StorageError

# Claimable: not running; or its lease ran out; or its process is seen dead here (the
# claim the caller saw, compared and swapped: ``''`` for a run recorded before claims);
# or forced. Parameters: (the dead claim or None, force).
CLAIMABLE = (
    "({runs}.status <> 'running' OR {runs}.lease < {now} OR COALESCE({runs}.claim, '') = ? OR ?)"
)


def new_claim() -> str:
    """A claim's token: the process that holds a run renews and finishes it by this."""
    return secrets.token_hex(12)


def pid_space() -> str:
    """Where a process id means one process: this boot of this kernel, in this process
    namespace (a container has its own). Host names do not say that: containers may share
    one, or get a new one at every start. Off Linux: the host name."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return f"host:{socket.gethostname()}"


def alive(pid: int | None) -> bool:
    """Whether a process of this process space is running."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def busy(
    thread_id: str,
    host: str | None,
    since: float,
    pid: int | None,
    *,
    here: bool,
    lease_left: float | None,
) -> RunBusyError:
    """The refusal of a claim: who holds the run (``here``: a process of this machine),
    since when, and when it may be taken over."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since))
    if here:
        return RunBusyError(
            thread_id,
            f"Run '{thread_id}' is still running in another process here (pid {pid}, since "
            f"{when}) — wait for it to finish, or stop it (Ctrl-C) and then resume.",
        )
    # A run recorded before claims has no lease: only --force takes it.
    expiry = (
        f"its claim runs out in {max(lease_left, 0):.0f} s unless it is renewed, and then "
        f"`ponder resume {thread_id}` takes the run over; "
        if lease_left is not None
        else ""
    )
    return RunBusyError(
        thread_id,
        f"Run '{thread_id}' is running on {host or 'another machine'} (since {when}), as "
        "the shared database knows — wait for it to finish. If that machine stopped, "
        f"{expiry}`--force` (force=True) takes it now, and that machine stops it at its "
        "next step.",
    )


def taken_over(thread_id: str) -> RunTakenOverError:
    return RunTakenOverError(
        thread_id,
        f"Run '{thread_id}' was taken over by another process (`ponder resume --force`, or "
        "this one could not renew its claim in time) — it stopped here; `ponder runs` shows "
        "where it goes on.",
    )


class Held:
    """A claim this process holds while its run goes on, renewed in the background."""

    def __init__(self, thread_id: str, renew: Callable[[], bool]) -> None:
        self.thread_id = thread_id
        self.renew = renew
        self.lost = False

    def check(self) -> None:
        """Stop the run here when another process took it over."""
        if self.lost:
            raise taken_over(self.thread_id)

    async def confirm(self) -> None:
        """Renew now and stop if taken over: after the event loop was held (a question
        asked in the terminal), its lease may have run out and the run been claimed."""
        with suppress(StorageError):  # the database is away for now: as in the background
            self.lost = self.lost or not await asyncio.to_thread(self.renew)
        self.check()


@asynccontextmanager
async def holding(thread_id: str, renew: Callable[[], bool], every: float) -> AsyncIterator[Held]:
    """Hold a run's claim while the block runs: ``renew`` (blocking: the database) is
    called on a worker thread every ``every`` seconds; once it says the claim is gone,
    :meth:`Held.check` raises."""
    held = Held(thread_id, renew)
    task = asyncio.create_task(_renewing(held, every), name=f"ponder-claim-{thread_id}")
    try:
        yield held
    finally:
        task.cancel()  # not awaited: a renewal in flight after the run's end changes nothing


async def _renewing(held: Held, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            if not await asyncio.to_thread(held.renew):
                held.lost = True
                return
        except StorageError:
            continue  # the database is away for now: the lease outlasts a few tries
