"""Reading documents into passages, HTML and PDF in worker processes.

Reading and text extraction (most of an indexing run's time, for HTML and PDF) need no
database, so they run in ponder's parsing workers (:mod:`ponder.services.text.sandbox`),
several files at once, while every SQLite write stays with the indexer. A worker has a
deadline and a memory ceiling per file, so a hostile file (nested a hundred thousand deep,
a PDF whose pages inflate to gigabytes) is skipped with its reason instead of holding the
process. A file that cannot be read comes back with the reason it is skipped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.search.local.files import SkipFile, read_document
from ponder.services.text import sandbox
from ponder.services.text.passages import chunk_text

# Files a parser reads (in a worker process); plain text needs none and is read here.
HEAVY_SUFFIXES = (".html", ".htm", ".pdf")
READ_SECONDS = 60.0  # per file: a thousand-page PDF takes a few seconds


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


def extracted(jobs: list[Job], workers: int) -> Generator[Extracted, None, None]:
    """Each job's result, in order, ``workers`` files at a time."""
    threads = ThreadPoolExecutor(max(1, workers), thread_name_prefix="ponder-reading")
    try:
        yield from threads.map(_read, jobs)
    finally:  # also when the indexer stops early (Ctrl-C): files not started are not read
        threads.shutdown(wait=True, cancel_futures=True)


def _read(job: Job) -> Extracted:
    if not job.path.lower().endswith(HEAVY_SUFFIXES):
        return extract(job)
    try:
        return sandbox.run(extract, job, deadline=READ_SECONDS)
    except sandbox.ParseFailed as exc:
        return Extracted(job, skipped=str(exc))


def pool_size(jobs: list[Job], workers: int | None = None) -> int:
    """Files read at once: as asked, or as many as ponder's parsing workers."""
    return max(1, min(workers or sandbox.workers(), len(jobs)))
