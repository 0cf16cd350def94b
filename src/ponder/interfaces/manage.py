"""`ponder index PATH` and `ponder runs`: the local index and the run history."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict

from rich.console import Console


def index_command(paths: list[str]) -> int:
    """Build or refresh the index; a progress bar in a terminal, one summary line always."""
    from ponder.services.search import index

    console = Console(stderr=True)
    warnings: list[str] = []
    if sys.stderr.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        columns = (
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("indexing", total=None)
            stats = index(
                paths,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                warn=warnings.append,
            )
    else:
        stats = index(paths, warn=warnings.append)
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}", markup=True, highlight=False)
    print(
        f"Indexed {stats.files} file(s): {stats.indexed} new or changed, {stats.unchanged} "
        f"unchanged, {stats.removed} removed, {stats.skipped} skipped; "
        f"{stats.passages} passage(s) added in {stats.seconds:.1f}s."
    )
    print(
        f'Search them with: ponder "your question" --search local --docs {" --docs ".join(paths)}'
    )
    return 0


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
