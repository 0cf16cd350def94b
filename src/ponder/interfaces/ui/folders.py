"""The documents page: the folders a run may read, how each one's index stands, and
indexing a folder in the background with progress the page polls."""

from __future__ import annotations

import asyncio
import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ponder.api import documents
from ponder.core.errors import InvalidInputError, PonderError, TooManyRunsError
from ponder.interfaces.ui import store
from ponder.interfaces.ui.access import User
from ponder.settings.callers import document_roots, operator_configuration, vet
from ponder.settings.paths import usable_path


def allowed_folders(user: User) -> list[str]:
    """The operator's document roots; for the operator also the folders indexed here."""
    roots = [str(root) for root in document_roots(operator_configuration())]
    extra = [f for f in store.folders() if f not in roots and Path(f).is_dir()]
    return roots + extra if user.operator else roots


def folders_info(user: User) -> list[dict[str, Any]]:
    """Each allowed folder with its index's figures."""
    roots = allowed_folders(user)
    rows = []
    for root in roots:
        status = documents.index_status([root])
        rows.append(
            {
                "path": str(root),
                "files": status.indexed_files,
                "passages": status.passages,
                "embedded": status.embedded,
                "stale": status.stale_files,
                "skipped": [(_inside(path, root), why) for path, why in status.skipped],
                "unknown": documents.unknown_summary(status.unknown_types),
            }
        )
    return rows


def _inside(path: str, root: str) -> str:
    """A file's path as the folder's page names it: from the folder down."""
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return path


@dataclass
class Job:
    owner: str
    path: str
    label: str = ""  # what the page calls the folder ("your uploads"); else its path
    done: int = 0
    total: int = 0
    finished: bool = False
    error: str | None = None
    result: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        return {
            "path": self.label or self.path,
            "done": self.done,
            "total": self.total,
            "finished": self.finished,
            "error": self.error,
            "result": self.result,
            "warnings": self.warnings[-5:],
        }


# Indexing jobs at once: one per user, two in all. Each holds a thread of its own pool (not
# the server's, which every request shares) while files are read in the parsing workers.
JOBS_PER_USER = 1
JOBS = 2


class Indexer:
    """Indexing jobs, each on a thread of a pool of its own; the page polls a job's
    figures. A user with a job running, or a server with as many as it runs, is refused
    another until one ends: a burst of "index this folder" cannot take the threads every
    other request needs."""

    def __init__(self) -> None:
        self.jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Future[None]] = set()
        self._pool = ThreadPoolExecutor(JOBS, thread_name_prefix="ponder-index")
        self._closing = threading.Event()

    def start(self, user: User, path: str) -> int:
        folder = self._allowed(user, path)
        self._refuse_beyond_limits(user)
        if user.operator:
            store.add_folder(str(folder))
        return self._launch(Job(user.name, str(folder)))

    def start_collection(self, user: User, folder: Path) -> int:
        """Index the user's own uploads (their folder, which no other user may name)."""
        self._refuse_beyond_limits(user)
        return self._launch(Job(user.name, str(folder), "your uploads"))

    def _launch(self, job: Job) -> int:
        job_id = next(self._ids)
        self.jobs[job_id] = job
        task = asyncio.get_running_loop().run_in_executor(self._pool, self._index, job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job_id

    def _refuse_beyond_limits(self, user: User) -> None:
        running = [job for job in self.jobs.values() if not job.finished]
        if sum(job.owner == user.name for job in running) >= JOBS_PER_USER:
            raise TooManyRunsError(
                "A folder of yours is being indexed already — wait for it to finish, then "
                "index the next."
            )
        if len(running) >= JOBS:
            raise TooManyRunsError(
                f"{JOBS} folders are being indexed already — try again when one is done."
            )

    def close(self) -> None:
        """Stop taking jobs; those running stop after their current file (whose reading a
        deadline bounds), keeping what they indexed."""
        self._closing.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _allowed(self, user: User, path: str) -> Path:
        text = path.strip()
        if not text:
            raise InvalidInputError("Give the folder to index, e.g. /home/you/notes.")
        if not user.operator:
            text = vet({"docs": [text]})["docs"][0]  # inside the operator's roots, or refused
        folder = usable_path(text)  # a NUL byte or ~nosuchuser is a message, not a 500
        if not folder.is_dir():
            raise InvalidInputError(f"There is no folder at {folder} — check the path.")
        return folder

    def _index(self, job: Job) -> None:
        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            stats = documents.index(
                [job.path], progress=progress, warn=job.warnings.append, stop=self._closing.is_set
            )
            job.result = {k: v for k, v in vars(stats).items() if isinstance(v, int | float | str)}
            job.result["skipped_files"] = [
                [_inside(path, job.path), why] for path, why in stats.skipped_files
            ]
            job.result["unknown_types"] = dict(stats.unknown_types)
        except PonderError as exc:
            job.error = str(exc)
        finally:
            job.finished = True
