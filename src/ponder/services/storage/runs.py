"""A small history of runs (id, topic, status) so `ponder runs` and `ponder resume` work.

A run is a thread of turns: its first question (the run's topic, its title for good) and
each follow-up asked on it. Each turn keeps its question, when it began and ended, and the
checkpoint its research finished in, so its report is read back from that checkpoint
exactly, after later turns moved the thread on. A run recorded before turns were kept has
none: it is one turn, its topic.

It lives beside the checkpoints: in SQLite in the data folder, or in PostgreSQL when
``PONDER_DATABASE_URL`` is set (then every machine using that database sees every run).
Where, and this machine's name in it, are the machine's settings an edge passes in.

A process runs a run only while it holds the run's claim (see ``claims``): starting,
resuming and following up take it in one statement, and the process renews it as it goes.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from ponder.core.errors import PonderError, RunNotFoundError, StorageError
from ponder.core.redact import redact, redact_value
from ponder.services.storage.claims import CLAIMABLE, alive, busy, new_claim, pid_space
from ponder.services.storage.history_db import (
    CLAIM_COLUMNS,
    COLUMNS,
    Database,
    errors,
    storage_error,
)
from ponder.settings.machine import Machine

Status = Literal["running", "waiting", "done", "interrupted", "failed"]


def this_host(machine: Machine) -> str:
    """This machine's name in the run history (``PONDER_HOST_ID`` overrides: containers get
    a new host name each time they start)."""
    return machine.host_id or socket.gethostname()


@dataclass
class RunRecord:
    thread_id: str
    topic: str
    config: dict[str, Any]
    status: str
    created: float
    updated: float
    output: str | None
    message: str | None
    host: str | None = None  # the machine that ran it last
    # Recorded by another machine (sharing the database): its process is not ours to see.
    elsewhere: bool = False
    questions: list[str] = field(default_factory=list)  # each turn's, the topic first

    @property
    def turns(self) -> int:
        return max(len(self.questions), 1)


@dataclass(frozen=True)
class TurnRecord:
    """One question asked on a run, and where its research finished."""

    number: int  # from 1
    question: str
    started: float
    ended: float | None
    checkpoint_id: str | None  # the checkpoint its report is read from (None: not finished)


# Not kept with a run (the history may be a shared database): MCP servers carry tokens in
# their env and URLs; a URL's credentials are kept as REDACTED. A resumed run takes those
# from the environment (or resume's kwargs).
NOT_STORED = ("mcp_servers",)


class RunHistory:
    """The run history of the database the machine's settings name."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.host = this_host(machine)
        self.pid_space = pid_space()

    @contextmanager
    def _database(self) -> Iterator[Database]:
        """A connection for one operation, committed at the end; failures are StorageErrors."""
        try:
            database = Database(self.machine)
            with closing(database.conn):
                yield database
                database.conn.commit()
        except PonderError:
            raise  # a refusal (a ValueError too), said as it is
        except errors() as exc:
            raise storage_error(self.machine.database_url, exc) from None

    def start(
        self, thread_id: str, topic: str, config: dict[str, Any], *, force: bool = False
    ) -> str:
        """Claim a run for this process, recording it as running: a new one (its first
        turn), or a recorded one again (resumed: its topic and turns are kept). The claim's
        token, which renews and finishes it. Raises RunBusyError when another process holds
        it (``force``: take it anyway); a history that cannot be written stops the run."""
        now, claim = time.time(), new_claim()
        with self._database() as db:
            won = db.execute(
                f"INSERT INTO {{runs}} ({COLUMNS}, {CLAIM_COLUMNS}) VALUES (?, ?, ?, 'running',"
                " ?, ?, NULL, NULL, ?, ?, ?, {now} + ?, ?) ON CONFLICT(thread_id) DO UPDATE SET"
                " status='running', config=excluded.config, updated=excluded.updated,"
                " pid=excluded.pid, host=excluded.host, claim=excluded.claim,"
                f" lease=excluded.lease, pidspace=excluded.pidspace WHERE {CLAIMABLE}"
                " RETURNING thread_id",
                (thread_id, topic, _stored(config), now, now, *self._holder(claim),
                 self._dead_claim(db, thread_id), force),
            ).fetchone()  # fmt: skip
            if won is None:
                raise self._busy(db, thread_id)
            _first_turn(db, thread_id)
        return claim

    def follow_up(self, thread_id: str, question: str, config: dict[str, Any]) -> tuple[int, str]:
        """Claim a recorded run for a follow-up question, recorded as its next turn,
        running: its number, and the claim's token (as :meth:`start`)."""
        now, claim = time.time(), new_claim()
        with self._database() as db:
            _first_turn(db, thread_id)  # a run from before turns were kept: its topic
            won = db.execute(
                "UPDATE {runs} SET status='running', config=?, updated=?, pid=?, host=?,"
                f" claim=?, lease={{now}} + ?, pidspace=? WHERE thread_id=? AND {CLAIMABLE}"
                " RETURNING thread_id",
                (_stored(config), now, *self._holder(claim), thread_id,
                 self._dead_claim(db, thread_id), False),
            ).fetchone()  # fmt: skip
            if won is None:
                raise self._busy(db, thread_id)  # and the turn above is not kept
            db.execute(
                "INSERT INTO {turns} (thread_id, turn, question, started)"
                " SELECT ?, COALESCE(MAX(turn), 0) + 1, ?, ? FROM {turns} WHERE thread_id=?",
                (thread_id, question, now, thread_id),
            )
            row = db.execute("SELECT MAX(turn) FROM {turns} WHERE thread_id=?", (thread_id,))
            return int(row.fetchone()[0]), claim

    def renew(self, thread_id: str, claim: str) -> bool:
        """Extend this process's claim on a running run; False when it no longer holds it
        (taken over). Raises StorageError when the history cannot be reached."""
        with self._database() as db:
            renewed = db.execute(
                "UPDATE {runs} SET lease={now} + ? WHERE thread_id=? AND claim=?"
                " AND status='running'",
                (self.machine.run_lease_seconds, thread_id, claim),
            )
            return bool(renewed.rowcount)

    def _holder(self, claim: str) -> tuple[Any, ...]:
        """The pid, host, claim, lease length and process space a claim records."""
        lease = self.machine.run_lease_seconds
        return os.getpid(), self.host, claim, lease, self.pid_space

    def _dead_claim(self, db: Database, thread_id: str) -> str | None:
        """The claim of a run whose process is seen dead here (the fast path: no waiting
        for its lease); None when there is none. The claim statement compares it, so a run
        claimed meanwhile is not taken."""
        row = db.execute(
            "SELECT status, pid, claim, pidspace, host FROM {runs} WHERE thread_id=?",
            (thread_id,),
        ).fetchone()
        if row is None or row[0] != "running" or self._alive_here(*row[1:]) is not False:
            return None
        return str(row[2] or "")

    def _alive_here(
        self, pid: int | None, claim: str | None, space: str | None, host: str | None
    ) -> bool | None:
        """Whether a run's process is alive, when this process can see it (its process
        space, or for a run recorded before claims, its host); None when it cannot."""
        if space == self.pid_space or (claim is None and host == self.host):
            return alive(pid)
        return None

    def _busy(self, db: Database, thread_id: str) -> PonderError:
        """Why a claim was refused: who holds the run, since when."""
        row = db.execute(
            "SELECT host, updated, pid, pidspace, lease - {now} FROM {runs} WHERE thread_id=?",
            (thread_id,),
        ).fetchone()
        if row is None:  # deleted meanwhile
            return RunNotFoundError(thread_id)
        host, since, pid, space, left = row
        here = space == self.pid_space
        return busy(thread_id, host, since, pid, here=here, lease_left=left)

    def finish(
        self,
        thread_id: str,
        status: Status,
        *,
        claim: str | None = None,
        output: str | None = None,
        message: str | None = None,
        checkpoint_id: str | None = None,
    ) -> bool:
        """Record how a run (its latest turn) ended, and the checkpoint a finished turn
        ended in, releasing its claim. With ``claim``, only while that claim holds it
        (a process that was taken over records nothing). Never raises: it runs while
        another error may be in flight."""
        now = time.time()
        try:
            with self._database() as db:
                ended = db.execute(
                    "UPDATE {runs} SET status=?, updated=?, output=COALESCE(?, output), message=?,"
                    " lease=NULL WHERE thread_id=? AND (CAST(? AS TEXT) IS NULL OR claim=?)",
                    (status, now, output, message and redact(message), thread_id, claim, claim),
                )
                if not ended.rowcount:
                    return False
                db.execute(
                    "UPDATE {turns} SET ended=?, checkpoint_id=COALESCE(?, checkpoint_id)"
                    " WHERE thread_id=? AND turn=(SELECT MAX(turn) FROM {turns} WHERE thread_id=?)",
                    (now, checkpoint_id, thread_id, thread_id),
                )
        except StorageError:
            return False
        return True

    def saved(self, thread_id: str, output: str) -> None:
        """Record where the run's report was written: its turns and times stay as they
        ended (a report exported a day later did not take a day)."""
        with self._database() as db:
            db.execute("UPDATE {runs} SET output=? WHERE thread_id=?", (output, thread_id))

    def settle(self, thread_id: str, turn: int, checkpoint_id: str) -> None:
        """Record where a turn finished when it was not recorded (a run from before turns
        were kept, followed up now: the thread's checkpoint before the new question)."""
        with self._database() as db:
            db.execute(
                "UPDATE {turns} SET checkpoint_id=? WHERE thread_id=? AND turn=?"
                " AND checkpoint_id IS NULL",
                (checkpoint_id, thread_id, turn),
            )

    def get(self, thread_id: str) -> RunRecord | None:
        rows = self._select(f"{_SELECT} WHERE thread_id=?", (thread_id,))
        asked = self._select(_QUESTIONS + " WHERE thread_id=? ORDER BY turn", (thread_id,))
        return self._record(rows[0], asked) if rows else None

    def recent(self, limit: int = 20) -> list[RunRecord]:
        query = f"{_SELECT} ORDER BY updated DESC LIMIT ?"
        latest = "SELECT thread_id FROM {runs} ORDER BY updated DESC LIMIT ?"
        asked = self._select(f"{_QUESTIONS} WHERE thread_id IN ({latest}) ORDER BY turn", (limit,))
        return [self._record(r, asked) for r in self._select(query, (limit,))]

    def turns(self, thread_id: str) -> list[TurnRecord]:
        """The run's turns, in order; a run from before turns were kept is one, its topic
        (its report: the thread's latest). None for a run not recorded."""
        query = (
            "SELECT turn, question, started, ended, checkpoint_id FROM {turns}"
            " WHERE thread_id=? ORDER BY turn"
        )
        rows = self._select(query, (thread_id,))
        if not rows and (record := self.get(thread_id)) is not None:
            return [TurnRecord(1, record.topic, record.created, record.updated, None)]
        return [TurnRecord(int(n), str(q), float(s), e, c) for n, q, s, e, c in rows]

    def delete(self, thread_id: str) -> bool:
        """Remove a run from the history; False when it was not there."""
        with self._database() as db:
            db.execute("DELETE FROM {turns} WHERE thread_id=?", (thread_id,))
            return bool(db.execute("DELETE FROM {runs} WHERE thread_id=?", (thread_id,)).rowcount)

    def _select(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._database() as db:
            return list(db.execute(query, params).fetchall())

    def _record(self, row: tuple[Any, ...], asked: list[tuple[Any, ...]]) -> RunRecord:
        thread_id, topic, config, status, created, updated, output, message, pid, host = row[:10]
        claim, lease, space, now = row[10:]
        elsewhere = host is not None and host != self.host
        record = RunRecord(
            thread_id, topic, json.loads(config), status, created, updated, output, message,
            host, elsewhere, [str(q) for thread, q in asked if thread == thread_id],
        )  # fmt: skip
        if record.status == "running":
            seen = self._alive_here(pid, claim, space, host)
            # Dead: its process is gone (SIGKILL, power loss), as seen here, or its claim ran
            # out unrenewed (its machine stopped). A run from before claims has no lease.
            if seen is False or (lease is not None and lease < now):
                record.status = "interrupted"
        return record


_SELECT = f"SELECT {COLUMNS}, {CLAIM_COLUMNS}, {{now}} FROM {{runs}}"
_QUESTIONS = "SELECT thread_id, question FROM {turns}"


def _stored(config: dict[str, Any]) -> str:
    config = {key: value for key, value in config.items() if key not in NOT_STORED}
    return json.dumps(redact_value(config))  # a URL's credentials: resume takes them from the env


def _first_turn(db: Database, thread_id: str) -> None:
    """The run's topic as its first turn, unless it has one (each run since turns are kept
    has; one from before has none until it is resumed or followed up)."""
    db.execute(
        "INSERT INTO {turns} (thread_id, turn, question, started, ended)"
        " SELECT thread_id, 1, topic, created, CASE WHEN status='running' THEN NULL"
        " ELSE updated END FROM {runs} WHERE thread_id=?"
        " ON CONFLICT (thread_id, turn) DO NOTHING",
        (thread_id,),
    )
