"""`ponder index PATH` and `ponder runs`: the local index and the run history."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict

from rich.console import Console
from rich.progress import ProgressColumn, Task
from rich.text import Text

Progress = Callable[[int, int], None]


def index_command(paths: list[str]) -> int:
    """Build or refresh the index; a progress bar in a terminal, one summary line always.

    Ctrl-C keeps what was indexed: the next run reads only the files still missing.
    """
    from ponder.services.search import index

    console = Console(stderr=True)
    warnings: list[str] = []
    seen = [0, 0]  # files done, of total: for the message when interrupted

    def note(done: int, total: int) -> None:
        seen[:] = [done, total]

    try:
        if sys.stderr.isatty():
            with progress_bar(console) as track:
                stats = index(paths, progress=track(note), warn=warnings.append)
        else:
            stats = index(paths, progress=note, warn=warnings.append)
    except KeyboardInterrupt:
        console.print(
            f"\nInterrupted after {seen[0]:,} of {seen[1]:,} files; what was indexed is kept. "
            "Run the same command again to index the rest.",
            highlight=False,
        )
        return 130
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}", markup=True, highlight=False)
    rate = (
        f", {stats.indexed / stats.seconds:,.0f} files/s" if stats.indexed and stats.seconds else ""
    )
    processes = f" in {stats.workers} processes" if stats.workers > 1 else ""
    print(
        f"Indexed {stats.files} file(s): {stats.indexed} new or changed, {stats.unchanged} "
        f"unchanged, {stats.removed} removed, {stats.skipped} skipped; "
        f"{stats.passages} passage(s) added in {stats.seconds:.1f}s{rate}{processes}."
    )
    print(
        f'Search them with: ponder "your question" --search local --docs {" --docs ".join(paths)}'
    )
    return 0


@contextmanager
def progress_bar(console: Console) -> Iterator[Callable[[Progress], Progress]]:
    """A bar with files done, files/s and time left; yields a wrapper for a progress hook."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        FilesPerSecond(),
        TimeElapsedColumn(),
        "left",
        TimeRemainingColumn(),
    )
    with Bar(*columns, console=console, transient=True, speed_estimate_period=10) as bar:
        task = bar.add_task("indexing", total=None)
        started = False

        def track(inner: Progress) -> Progress:
            def update(done: int, total: int) -> None:
                nonlocal started
                inner(done, total)
                if not started:  # unchanged files are counted at once: not a speed
                    bar.reset(task, completed=done, total=total)
                    started = True
                else:
                    bar.update(task, completed=done, total=total)

            return update

        yield track


class FilesPerSecond(ProgressColumn):
    """Files indexed per second, over the last few seconds."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text(f"{speed:,.0f} files/s" if speed else "", style="progress.data.speed")


def runs_command(limit: int, as_json: bool) -> int:
    """Recent runs, newest first, with what to do about unfinished ones."""
    from ponder.services import runs

    records = runs.recent(max(limit, 1))
    if as_json:
        for record in records:
            sys.stdout.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
        return 0
    if not records:
        print('No runs yet — start one with: ponder "your question"')
        return 0
    print(f"{'ID':<24}  {'STATUS':<11}  {'UPDATED':<16}  TOPIC")
    for record in records:
        updated = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.updated))
        topic = record.topic if len(record.topic) <= 60 else record.topic[:59] + "…"
        print(f"{record.thread_id:<24}  {record.status:<11}  {updated:<16}  {topic}")
    unfinished = [r for r in records if r.status != "done"]
    if unfinished:
        print(f"\nFinish an unfinished run with: ponder resume {unfinished[0].thread_id}")
    return 0
