"""Watched questions, kept in the data folder: one folder per watch.

A watch's folder holds its question and settings (``watch.json``), the record of each of
its runs (``runs.jsonl``, appended to and never rewritten, so a killed process loses at most
the line it was writing), each run's snapshot of what it read (``snapshots/N.json.gz``, the
next run compares against it), each run's change report (``changes/N.md``) and its Atom
feed (``feed.atom``). A run holds the watch's lock while it runs: the operating system
lets go of it when the process dies, so a run that started and has no end, with the lock
free, was killed, and the next ``ponder watch run`` records it as failed.
"""

from __future__ import annotations

import gzip
import json
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from ponder.core.errors import InvalidInputError, PonderError
from ponder.core.redact import redact_value
from ponder.settings.machine import Machine
from ponder.settings.paths import data_folder, ensure

KILLED = "the process running it ended before the run did (killed, or the machine stopped)"
_NOT_STORED = ("mcp_servers",)  # as for runs: MCP servers carry tokens


class WatchBusy(PonderError):
    """Another process is running this watch now."""


@dataclass
class Watch:
    id: str
    question: str
    every: float  # seconds between runs
    options: dict[str, Any]  # the run's settings as given; the rest from the environment
    created: float
    feed_key: str  # names the served feed: unguessable, and renewed to revoke it
    owner: str = ""  # on a shared page: who added it (only they see it)
    # A caller's watch: what they asked, vetted again at each run against the operator's
    # settings of the day, and their own folders (uploads) it may read.
    asked: dict[str, Any] | None = None
    own: list[str] = field(default_factory=list)


@dataclass
class WatchRun:
    number: int  # from 1
    started: float
    status: str = "running"  # running, done or failed
    ended: float | None = None
    thread_id: str | None = None
    error: str | None = None
    changes: dict[str, int] = field(default_factory=dict)  # counts of each kind of change


class WatchStore:
    """The watches of this machine's data folder."""

    def __init__(self, machine: Machine) -> None:
        self.root = data_folder(machine) / "watches"

    def add(
        self,
        question: str,
        every: float,
        options: dict[str, Any],
        owner: str = "",
        asked: dict[str, Any] | None = None,
        own: list[str] | None = None,
    ) -> Watch:
        kept = {k: v for k, v in options.items() if k not in _NOT_STORED}
        watch = Watch(
            id=time.strftime("%Y%m%d-") + secrets.token_hex(8),
            question=question,
            every=every,
            options=redact_value(kept),
            created=time.time(),
            feed_key=secrets.token_urlsafe(24),
            owner=owner,
            asked=asked,
            own=list(own or []),
        )
        self._write(watch)
        return watch

    def all(self) -> list[Watch]:
        if not self.root.is_dir():
            return []
        found = (self._read(folder) for folder in sorted(self.root.iterdir()))
        return [watch for watch in found if watch is not None]

    def get(self, watch_id: str) -> Watch:
        folder = self._folder(watch_id)
        watch = self._read(folder) if folder.is_dir() else None
        if watch is None:
            raise InvalidInputError(f"No watch '{watch_id}' — see `ponder watch list`.")
        return watch

    def remove(self, watch_id: str) -> None:
        """Forget a watch; refused while one of its runs goes on (WatchBusy)."""
        self.get(watch_id)
        with self._lock(watch_id):
            shutil.rmtree(self._folder(watch_id))

    def new_feed_key(self, watch_id: str) -> Watch:
        """Revoke the feed's address: a new key, the old one answers nothing from now on."""
        watch = self.get(watch_id)
        watch.feed_key = secrets.token_urlsafe(24)
        self._write(watch)
        return watch

    # -- runs ------------------------------------------------------------------------

    def runs(self, watch_id: str) -> list[WatchRun]:
        """Each run in order; one started with no end whose process is gone (nothing holds
        the watch) is shown failed, as the next run records it."""
        kept = self._recorded(watch_id)
        if any(run.status == "running" for run in kept) and not self._held(watch_id):
            for run in kept:
                if run.status == "running":
                    run.status, run.error = "failed", KILLED
        return kept

    def _recorded(self, watch_id: str) -> list[WatchRun]:
        """Each run as its record says it: one started with no end is ``running``."""
        path = self._folder(watch_id) / "runs.jsonl"
        found: dict[int, WatchRun] = {}
        for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # the line a killed process was writing
            number = int(entry.pop("number"))
            if number not in found:
                found[number] = WatchRun(number, float(entry.get("started") or 0))
            for key, value in entry.items():
                setattr(found[number], key, value)
        return [found[number] for number in sorted(found)]

    @contextmanager
    def running(self, watch_id: str) -> Iterator[None]:
        """Hold the watch while one of its runs goes on; the runs a killed process left
        unfinished are recorded as failed first."""
        with self._lock(watch_id):
            for run in self._recorded(watch_id):
                if run.status == "running":  # its process was killed
                    self.finish(watch_id, run.number, "failed", error=KILLED)
            yield

    @contextmanager
    def _lock(self, watch_id: str) -> Iterator[None]:
        lock = FileLock(self._folder(watch_id) / "lock", timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise WatchBusy(f"Watch '{watch_id}' is running now; try again when it ends.") from None
        try:
            yield
        finally:
            lock.release()

    def _held(self, watch_id: str) -> bool:
        """Whether a process holds the watch (one of its runs goes on)."""
        try:
            with self._lock(watch_id):
                return False
        except WatchBusy:
            return True

    def begin(self, watch_id: str, thread_id: str) -> WatchRun:
        number = len(self.runs(watch_id)) + 1
        run = WatchRun(number, time.time(), thread_id=thread_id)
        self._append(watch_id, asdict(run))
        return run

    def finish(
        self,
        watch_id: str,
        number: int,
        status: str,
        *,
        error: str | None = None,
        changes: dict[str, int] | None = None,
    ) -> None:
        entry = {"number": number, "status": status, "ended": time.time(), "error": error}
        self._append(watch_id, {**entry, "changes": changes or {}})

    # -- what each run leaves ------------------------------------------------------------

    def save_snapshot(self, watch_id: str, number: int, snapshot: dict[str, Any]) -> None:
        """Keep run ``number``'s snapshot, the one the next run compares with; the older
        ones are compared with nothing more, and go."""
        folder = self._folder(watch_id) / "snapshots"
        data = gzip.compress(json.dumps(snapshot).encode("utf-8"))
        _replace(folder / f"{number}.json.gz", data)
        for older in folder.glob("*.json.gz"):
            if older.name != f"{number}.json.gz":
                older.unlink(missing_ok=True)

    def snapshot(self, watch_id: str, number: int) -> dict[str, Any] | None:
        path = self._folder(watch_id) / "snapshots" / f"{number}.json.gz"
        if not path.exists():
            return None
        loaded: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
        return loaded

    def save_changes(self, watch_id: str, number: int, markdown: str) -> Path:
        path = self._folder(watch_id) / "changes" / f"{number}.md"
        _replace(path, markdown.encode("utf-8"))
        return path

    def changes(self, watch_id: str, number: int) -> str | None:
        path = self._folder(watch_id) / "changes" / f"{number}.md"
        return path.read_text(encoding="utf-8") if path.exists() else None

    def feed_path(self, watch_id: str) -> Path:
        return self._folder(watch_id) / "feed.atom"

    def save_feed(self, watch_id: str, atom: bytes) -> Path:
        path = self.feed_path(watch_id)
        _replace(path, atom)
        return path

    # -- the folder ----------------------------------------------------------------

    def _folder(self, watch_id: str) -> Path:
        if not watch_id or not all(c.isalnum() or c == "-" for c in watch_id):
            raise InvalidInputError(f"No watch '{watch_id}' — see `ponder watch list`.")
        return self.root / watch_id

    def _write(self, watch: Watch) -> None:
        ensure(self._folder(watch.id))
        _replace(self._folder(watch.id) / "watch.json", json.dumps(asdict(watch)).encode())

    def _read(self, folder: Path) -> Watch | None:
        try:
            return Watch(**json.loads((folder / "watch.json").read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None  # not a watch (or one being removed)

    def _append(self, watch_id: str, entry: dict[str, Any]) -> None:
        line = json.dumps(entry) + "\n"
        with open(self._folder(watch_id) / "runs.jsonl", "a+b") as out:
            if out.seek(0, os.SEEK_END):
                out.seek(-1, os.SEEK_END)
                if out.read(1) != b"\n":
                    line = "\n" + line  # after the half line a killed process left
            out.write(line.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())


def _replace(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all: a reader never sees half a file."""
    ensure(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, path)
