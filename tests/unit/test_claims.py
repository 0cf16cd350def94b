"""Claims on runs: of processes (on this machine or others sharing the database) that start,
resume or follow up one run at once, exactly one runs it; a run whose machine died is
taken over once its lease ran out; one still alive elsewhere is not."""

from __future__ import annotations

import asyncio
import os
from collections import Counter

import pytest
from support.edges import history
from support.racing import machine, race, run_history_sql

from ponder.core.errors import RunBusyError, RunTakenOverError
from ponder.interfaces.cli import main
from ponder.services.storage.claims import holding

MACHINES = ("box-a", "box-b", "box-c", "box-d")


def test_of_machines_resuming_one_run_at_once_exactly_one_runs_it() -> None:
    history().start("t", "How do tides work?", {})
    history().finish("t", "interrupted")
    for _ in range(5):  # each round a fresh race on the same run
        claimants = [machine(name) for name in MACHINES * 2]
        won, lost = race([lambda h=h: h.start("t", "How do tides work?", {}) for h in claimants])
        assert len(won) == 1 and len(lost) == len(claimants) - 1
        [claim] = won
        record = history().get("t")
        assert record is not None and record.status == "running" and record.host in MACHINES
        # Each loser is told where it runs: the winner's machine, or on that machine, "here".
        said = Counter("here" if "process here" in str(e) else str(e).split()[5] for e in lost)
        assert said == {"here": 1, record.host: 6}
        assert history().finish("t", "interrupted", claim=claim)


def test_of_follow_ups_asked_at_once_on_a_finished_run_one_becomes_its_next_turn() -> None:
    history().start("t", "How do tides work?", {})
    history().finish("t", "done")
    claimants = [machine(name) for name in MACHINES]
    won, lost = race([lambda h=h: h.follow_up("t", f"From {h.host}?", {}) for h in claimants])
    assert [turn for turn, _claim in won] == [2] and len(lost) == 3
    assert len(history().turns("t")) == 2, "a refused follow-up records no turn"


def test_a_run_alive_on_another_machine_is_refused_with_where_and_since() -> None:
    machine("gpu-box").start("t", "How do tides work?", {})
    record = history().get("t")
    assert record is not None and record.status == "running" and record.elsewhere
    with pytest.raises(RunBusyError) as refused:
        machine("laptop").start("t", "How do tides work?", {})
    message = str(refused.value)
    assert "running on gpu-box (since 20" in message
    assert "runs out in 60 s" in message and "--force" in message


def test_a_run_whose_machine_died_is_taken_over_once_its_lease_ran_out() -> None:
    dead = machine("gpu-box")
    claim = dead.start("t", "How do tides work?", {})
    run_history_sql("UPDATE {runs} SET lease = {now} - 1")  # a minute without renewal
    assert history().get("t").status == "interrupted"  # type: ignore[union-attr]
    taken = machine("laptop").start("t", "How do tides work?", {})
    record = history().get("t")
    assert record is not None and (record.status, record.host) == ("running", "laptop")
    # The machine comes back: it learns it lost the run, and records nothing over it.
    assert dead.renew("t", claim) is False
    assert dead.finish("t", "failed", claim=claim, message="boom") is False
    assert history().get("t").status == "running"  # type: ignore[union-attr]
    assert machine("laptop").renew("t", taken) is True


def test_a_forced_claim_takes_a_live_run_and_its_holder_stops() -> None:
    holder = machine("gpu-box")
    claim = holder.start("t", "How do tides work?", {})
    machine("laptop").start("t", "How do tides work?", {}, force=True)

    async def hold() -> None:
        renew = lambda: holder.renew("t", claim)  # noqa: E731
        async with holding("t", renew, every=0.01) as held:
            for _ in range(200):
                held.check()
                await asyncio.sleep(0.01)

    with pytest.raises(RunTakenOverError, match="taken over by another process"):
        asyncio.run(hold())


def test_on_this_machine_a_dead_process_frees_its_run_at_once_and_a_live_one_holds_it(
    isolated: object,
) -> None:
    history().start("t", "How do tides work?", {})  # held by this live process
    with pytest.raises(RunBusyError, match=f"another process here \\(pid {os.getpid()},"):
        history().start("t", "How do tides work?", {})
    run_history_sql("UPDATE {runs} SET pid = ?", (dead_pid(),))  # its lease still runs
    assert history().get("t").status == "interrupted"  # type: ignore[union-attr]
    history().start("t", "How do tides work?", {})
    # Another machine cannot see that process: for it, only the lease counts.
    assert machine("laptop").get("t").status == "running"  # type: ignore[union-attr]


def test_a_second_start_of_a_new_run_with_the_same_id_is_refused() -> None:
    won, lost = race(
        [lambda h=h: h.start("fixed-id", "Tides?", {}) for h in map(machine, MACHINES)]
    )
    assert len(won) == 1 and len(lost) == 3


def test_resume_of_a_run_held_elsewhere_tells_the_user_where_and_what_to_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    machine("gpu-box").start("t", "How do tides work?", {})
    assert main(["resume", "t"]) == RunBusyError.exit_code == 2
    err = capsys.readouterr().err
    assert "running on gpu-box" in err and "ponder resume t" in err and "--force" in err
    assert "Traceback" not in err


def dead_pid() -> int:
    """A process id no process has now: a child that ran and was reaped."""
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)
