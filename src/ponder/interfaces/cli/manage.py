"""`ponder index PATH` and `ponder runs`: the local index and the run history."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.progress import ProgressColumn, Task
from rich.text import Text

from ponder.core.errors import ExitCode

Progress = Callable[[int, int], None]


def index_command(
    paths: list[str], options: dict[str, Any] | None = None, as_json: bool = False
) -> int:
    """Build or refresh the index; a progress bar in a terminal, one summary line always,
    each file skipped with its reason, and the files of unknown types counted by suffix
    (``as_json``: all of it as one JSON object on stdout). With ``embed_model`` set (flag
    or PONDER_EMBED_MODEL), new passages are embedded next.

    Ctrl-C keeps what was indexed (or embedded): the next run does only what is missing.
    """
    from ponder.api.documents import index, unknown_summary
    from ponder.settings.configuration import Configuration

    config = Configuration.create(**(options or {}))
    console = Console(stderr=True)
    warnings: list[str] = []
    seen = [0, 0]  # files done, of total: for the message when interrupted
    try:
        stats = _tracked(
            console, "indexing", "files", seen, index, paths, warn=warnings.append, config=config
        )
    except KeyboardInterrupt:
        _interrupted(console, f"{seen[0]:,} of {seen[1]:,} files", "what was indexed is kept")
        return ExitCode.INTERRUPTED
    if not as_json:
        _said(console, warnings, stats, unknown_summary(stats.unknown_types))
    semantic = ""
    if config.embed_model:
        if (code := _embed(paths, config, console)) != 0:
            return code
        semantic = f" --embed-model {config.embed_model}"
    if as_json:  # stdout holds the JSON alone, for programs
        print(json.dumps({**asdict(stats), "warnings": warnings}))
        return 0
    print(
        f'Search them with: ponder "your question" --search local --docs '
        f"{' --docs '.join(paths)}{semantic}"
    )
    return 0


def _said(console: Console, warnings: list[str], stats: Any, unknown: str) -> None:
    """The summary, each file skipped with its reason, and what was not read."""
    shown = {w for w in warnings if w.startswith("Skipped ")}
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}", markup=True, highlight=False)
    for path, why in stats.skipped_files:  # those the warnings did not name (after ten)
        if f"Skipped {path}: {why}." not in shown:
            console.print(f"[yellow]skipped:[/] {path}: {why}", markup=True, highlight=False)
    rate = (
        f", {stats.indexed / stats.seconds:,.0f} files/s" if stats.indexed and stats.seconds else ""
    )
    processes = f" in {stats.workers} processes" if stats.workers > 1 else ""
    print(
        f"Indexed {stats.files} file(s): {stats.indexed} new or changed, {stats.unchanged} "
        f"unchanged, {stats.removed} removed, {stats.skipped} skipped; "
        f"{stats.passages} passage(s) added in {stats.seconds:.1f}s{rate}{processes}."
    )
    if unknown:
        print(f"Not read, of unknown types: {unknown}.")
    if stats.left_out:
        print(
            f"Left out: {stats.left_out} hidden file(s) or folder(s) (the operator's "
            "PONDER_DOCS_HIDDEN_AND_SYMLINKS reads them)."
        )


def _embed(paths: list[str], config: Any, console: Console) -> int:
    """Embed the passages that have no vector yet; Ctrl-C keeps the batches done."""
    from ponder.api.documents import embed

    seen = [0, 0]
    warnings: list[str] = []
    try:
        stats = _tracked(
            console, "embedding", "passages", seen, embed, paths, config, warn=warnings.append
        )
    except KeyboardInterrupt:
        _interrupted(console, f"{seen[0]:,} of {seen[1]:,} passages", "those embedded are kept")
        return ExitCode.INTERRUPTED
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}", markup=True, highlight=False)
    rate = f", {stats.embedded / stats.seconds:,.1f} passages/s" if stats.embedded else ""
    print(
        f"Embedded {stats.embedded} passage(s) with {stats.model} in {stats.seconds:.1f}s"
        f"{rate}; {stats.total} passage(s) searchable by meaning."
    )
    return 0


def _tracked(
    console: Console, label: str, unit: str, seen: list[int], work: Any, *args: Any, **kwargs: Any
) -> Any:
    """``work(*args, progress=..., **kwargs)`` with a progress bar when stderr is a
    terminal; ``seen`` holds the last (done, total) for the message when interrupted."""

    def note(done: int, total: int) -> None:
        seen[:] = [done, total]

    if not sys.stderr.isatty():
        return work(*args, progress=note, **kwargs)
    with progress_bar(console, label, unit) as track:
        return work(*args, progress=track(note), **kwargs)


def _interrupted(console: Console, how_far: str, kept: str) -> None:
    console.print(
        f"\nInterrupted after {how_far}; {kept}. Run the same command again to do the rest.",
        highlight=False,
    )


@contextmanager
def progress_bar(
    console: Console, label: str = "indexing", unit: str = "files"
) -> Iterator[Callable[[Progress], Progress]]:
    """A bar with items done, items/s and time left; yields a wrapper for a progress hook."""
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
        PerSecond(unit),
        TimeElapsedColumn(),
        "left",
        TimeRemainingColumn(),
    )
    with Bar(*columns, console=console, transient=True, speed_estimate_period=10) as bar:
        task = bar.add_task(label, total=None)
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


class PerSecond(ProgressColumn):
    """Items done per second, over the last few seconds."""

    def __init__(self, unit: str = "files") -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text(f"{speed:,.0f} {self.unit}/s" if speed else "", style="progress.data.speed")


def runs_command(limit: int, as_json: bool, server: str | None = None) -> int:
    """Recent runs, newest first, with what to do about unfinished ones; with a server
    (``--server``, ``PONDER_SERVER``), that server's runs."""
    from ponder.api import server_url
    from ponder.api.history import runs

    server = server_url(server)
    records = runs(limit, server)
    if as_json:
        for record in records:
            sys.stdout.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
        return 0
    if not records:
        print('No runs yet — start one with: ponder "your question"')
        return 0
    width = max(24, *(len(r.thread_id) for r in records))  # a server's ids are UUIDs
    print(f"{'ID':<{width}}  {'STATUS':<11}  {'UPDATED':<16}  TOPIC")
    for record in records:
        updated = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.updated))
        topic = record.topic if len(record.topic) <= 60 else record.topic[:59] + "…"
        if record.turns > 1:  # a thread: its first question, then its follow-ups
            more = record.turns - 1
            topic += f" (+{more} follow-up{'s' if more > 1 else ''})"
        print(f"{record.thread_id:<{width}}  {record.status:<11}  {updated:<16}  {topic}")
    unfinished = [r for r in records if r.status != "done"]
    if unfinished:
        where = f" --server {server}" if server else ""
        print(f"\nFinish an unfinished run with: ponder resume {unfinished[0].thread_id}{where}")
    return 0
