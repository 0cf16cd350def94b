"""Reading documents into passages: one file at a time, in worker processes when it pays.

Reading and text extraction (most of an indexing run's time, for HTML and PDF) need no
database, so they run in a pool of processes, one per core, while every SQLite write stays
with the indexer. A file that cannot be read comes back with the reason it is skipped.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Generator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.search.local.documents import SkipFile, read_document
from ponder.services.text.passages import chunk_text

# Starting worker processes costs about half a second (each imports ponder), in which one
# process reads some 200 HTML files: fewer HTML or PDF files than this are read in-process.
POOL_MIN_FILES = 200
HEAVY_SUFFIXES = (".html", ".htm", ".pdf")


@dataclass
class Job:
    path: str
    signature: tuple[int, int]
    known_hash: str | None  # the stored content hash, when the file was indexed before
    max_bytes: int


@dataclass
class Extracted:
    """What a worker made of one file: its text cut into passages, or why it is skipped."""

    job: Job
    digest: str = ""
    title: str = ""
    text: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    page_starts: list[int] = field(default_factory=list)
    skipped: str | None = None
    retry: bool = False  # unreadable now: stored so that the next run tries again
    same_content: bool = False  # touched, not changed


def extract(job: Job) -> Extracted:
    """Read one file and cut its text into passages (runs in a worker process)."""
    if job.signature[1] > job.max_bytes:
        return Extracted(job, skipped=f"larger than {job.max_bytes // (1024 * 1024)} MB")
    try:
        data = Path(job.path).read_bytes()
    except OSError as exc:
        return Extracted(job, skipped=f"cannot read ({exc.strerror or exc})", retry=True)
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    if digest == job.known_hash:
        return Extracted(job, digest, same_content=True)
    try:
        document = read_document(Path(job.path), data)
    except SkipFile as exc:
        return Extracted(job, digest, skipped=str(exc))
    except Exception as exc:  # an extractor bug on one odd file must not stop the run
        return Extracted(job, digest, skipped=f"unreadable ({type(exc).__name__}: {exc})")
    spans = chunk_text(document.text)
    return Extracted(job, digest, document.title, document.text, spans, document.page_starts)


def _ignore_interrupts() -> None:
    # Ctrl-C is the parent's to handle: it commits what was indexed and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def extracted(jobs: list[Job], workers: int) -> Generator[Extracted, None, None]:
    """Each job's result, in order; in ``workers`` processes when that pays."""
    if workers < 2:
        yield from map(extract, jobs)
        return
    context = multiprocessing.get_context(_start_method())
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts)
    try:
        yield from pool.map(extract, jobs, chunksize=4)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_method() -> str:
    """fork where it is safe (POSIX, this process has one thread: `ponder index`), as it
    costs milliseconds; spawn otherwise (a thread holding a lock would break a fork), which
    costs each worker about half a second to import ponder."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def pool_size(jobs: list[Job], workers: int | None = None) -> int:
    """Processes for these files: as asked, or one per core when there is enough work.

    Only HTML and PDF are worth a pool: plain text needs no extraction, and sending it
    between processes costs more than reading it here.
    """
    if workers is None:
        heavy = sum(1 for job in jobs if job.path.lower().endswith(HEAVY_SUFFIXES))
        workers = (os.cpu_count() or 1) if heavy >= POOL_MIN_FILES else 1
    return max(1, min(workers, len(jobs)))
