"""Reading documents into passages, every file in a parsing worker.

Reading and text extraction (most of an indexing run's time) need no database, so they run
in ponder's parsing workers (:mod:`ponder.services.text.sandbox`), several files at once,
while every SQLite write stays with the indexer. A worker has a deadline and a memory
ceiling per file, so a hostile file (a zip bomb, XML nested a hundred thousand deep, a PDF
whose pages inflate to gigabytes, a file on a hung network drive) is skipped with its
reason instead of holding the process. Plain text goes there too: a file is opened in the
worker without blocking (a named pipe would never give an end of file), only when it is a
regular file, and only when what was opened lies where discovery found it (a link swapped
in since then would lead out of the folder).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.search.backends.local.files import NOT_REGULAR, leads_inside
from ponder.services.search.backends.local.formats import SkipFile, read_document
from ponder.services.text import sandbox
from ponder.services.text.passages import chunk_text

READ_SECONDS = 60.0  # per file: a thousand-page PDF takes a few seconds
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_PATH_ONLY: int = getattr(os, "O_PATH", 0)


@dataclass
class Job:
    path: str
    signature: tuple[int, int]
    known_hash: str | None  # the stored content hash, when the file was indexed before
    max_bytes: int
    # The folders (or named files) the file must lie in once opened; None: anywhere (the
    # operator's docs_hidden_and_symlinks).
    bounds: tuple[str, ...] | None = None
    # Why it is skipped unopened: a pipe, socket or device (opening a device can do things:
    # a watchdog starts counting), or a link out of the folder.
    refused: str | None = None


@dataclass
class Extracted:
    """What a worker made of one file: its text cut into passages, or why it is skipped."""

    job: Job
    digest: str = ""
    title: str = ""
    text: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    page_starts: list[int] = field(default_factory=list)
    part: str = "page"
    authors: list[str] = field(default_factory=list)
    date: str | None = None
    skipped: str | None = None
    retry: bool = False  # unreadable now: stored so that the next run tries again
    same_content: bool = False  # touched, not changed


class _ReadAgain(SkipFile):
    """Skipped this time only: the file changed, or moved out of bounds, while it was read."""


def extract(job: Job) -> Extracted:
    """Read one file and cut its text into passages (runs in a worker process)."""
    try:
        data = read_bytes(job)
    except _ReadAgain as exc:
        return Extracted(job, skipped=str(exc), retry=True)
    except SkipFile as exc:
        return Extracted(job, skipped=str(exc))
    except OSError as exc:
        return Extracted(job, skipped=f"cannot read ({exc.strerror or exc})", retry=True)
    digest = content_hash(data)
    if digest == job.known_hash:
        return Extracted(job, digest, same_content=True)
    path = Path(job.path)
    try:
        document = read_document(path.suffix, data, path.stem)
    except SkipFile as exc:
        return Extracted(job, digest, skipped=str(exc))
    except (ValueError, LookupError, RecursionError) as exc:  # a reader's bug on one odd file
        return Extracted(job, digest, skipped=f"unreadable ({type(exc).__name__}: {exc})")
    spans = chunk_text(document.text)
    return Extracted(
        job,
        digest,
        document.title,
        document.text,
        spans,
        document.page_starts,
        document.part,
        document.authors,
        document.date,
    )


def content_hash(data: bytes) -> str:
    """A file's content hash, as the index keeps it (a watch compares documents by it)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def read_bytes(job: Job) -> bytes:
    """The file's bytes, up to ``job.max_bytes``: opened without blocking, a regular file,
    within its bounds."""
    if job.signature[1] > job.max_bytes:
        raise SkipFile(_too_large(job))
    descriptor = _opened(job)
    try:
        chunks, left = [], job.max_bytes + 1
        while left > 0 and (chunk := os.read(descriptor, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    if left <= 0:
        raise SkipFile(_too_large(job))
    return b"".join(chunks)


def _opened(job: Job) -> int:
    """The file, opened for reading once it is known to be a regular file within its
    bounds. Where the system has ``O_PATH`` (Linux), the path is first opened for nothing
    at all — no effect on a device or a pipe, even one a link was swapped to — checked, and
    that same file reopened; elsewhere it is opened without blocking, then checked."""
    if _PATH_ONLY and os.path.isdir("/proc/self/fd"):
        handle = os.open(job.path, _PATH_ONLY | os.O_CLOEXEC)
        try:
            _check(handle, job)
            return os.open(f"/proc/self/fd/{handle}", _OPEN_FLAGS)
        finally:
            os.close(handle)
    descriptor = os.open(job.path, _OPEN_FLAGS)
    try:
        _check(descriptor, job)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _check(descriptor: int, job: Job) -> None:
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        raise SkipFile(NOT_REGULAR)
    if job.bounds is not None and not _opened_inside(descriptor, job, info):
        raise _ReadAgain("it leads out of its folder (a link, put there after it was found)")


def _opened_inside(descriptor: int, job: Job, info: os.stat_result) -> bool:
    """Whether the file opened is one inside the bounds: on Linux the kernel says which
    file the descriptor is; elsewhere the path's target must be that same file."""
    assert job.bounds is not None
    link = f"/proc/self/fd/{descriptor}"
    if os.path.islink(link):
        return leads_inside(os.readlink(link), job.bounds)
    target = os.path.realpath(job.path)
    try:
        same = os.stat(target)
    except OSError:
        return False
    identical = (same.st_dev, same.st_ino) == (info.st_dev, info.st_ino)
    return identical and leads_inside(target, job.bounds)


def _too_large(job: Job) -> str:
    return f"larger than {job.max_bytes // (1024 * 1024)} MB"


def extracted(jobs: list[Job], workers: int) -> Generator[Extracted, None, None]:
    """Each job's result, in order, ``workers`` files at a time."""
    threads = ThreadPoolExecutor(max(1, workers), thread_name_prefix="ponder-reading")
    try:
        yield from threads.map(_read, jobs)
    finally:  # also when the indexer stops early (Ctrl-C): files not started are not read
        threads.shutdown(wait=True, cancel_futures=True)


def _read(job: Job) -> Extracted:
    if job.refused is not None:
        return Extracted(job, skipped=job.refused)
    try:
        return sandbox.run(extract, job, deadline=READ_SECONDS)
    except sandbox.ParseFailed as exc:
        return Extracted(job, skipped=str(exc))


def pool_size(jobs: list[Job], workers: int | None = None) -> int:
    """Files read at once: as asked, or as many as ponder's parsing workers."""
    return max(1, min(workers or sandbox.workers(), len(jobs)))
