"""The API for watched questions: a question researched again on a schedule, each run
compared with the one before it by source and by claim (``ponder watch``, ``ponder ui``).

```python
from ponder.api import watches
watch = watches.add("What is new in asyncio?", every="1d", search="local", docs=["~/notes"])
for outcome in watches.run_due():  # what cron or a systemd timer calls
    print(outcome.headline)
print(watches.changes(watch.id))  # the latest change report, in Markdown
```

Each run is an ordinary run of the run history (``ponder runs``), with no clarifying
question. A run that fails is recorded with its reason and the watch goes on; one whose
process was killed is recorded as failed by the next ``run_due``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ponder.api import documents, server_url
from ponder.api.runner import new_thread_id
from ponder.core.errors import InvalidInputError, PonderError
from ponder.core.result import Report
from ponder.core.topic import clean_topic
from ponder.services.storage.watches import Watch, WatchBusy, WatchRun, WatchStore
from ponder.services.watch import change_report, snapshot
from ponder.services.watch.changes import compare
from ponder.services.watch.feed import Entry, atom
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment
from ponder.settings.research_loop import seconds_of

SHORTEST = 60.0  # seconds between two runs of a watch on this machine

__all__ = ["Outcome", "Watch", "WatchRun", "add", "changes", "due", "feed", "remove"]


@dataclass
class Outcome:
    """What one run of a watch did."""

    watch: Watch
    run: WatchRun | None  # None: the watch was running in another process
    headline: str
    report: Report | None = None


def add(question: str, every: str | float, *, owner: str = "", **config: Any) -> Watch:
    """Watch ``question``: research it every ``every`` (seconds, or 12h, 1d, 1w) with these
    :class:`Configuration` settings (the rest from the environment at each run)."""
    clean = clean_topic(question)
    seconds = interval(every)
    _here_only()
    Configuration.create(**config)  # a bad setting is refused now, not at the first run
    return _store().add(clean, seconds, config, owner)


def _here_only() -> None:
    """Watches run where their documents are read again: on this machine, not an engine."""
    if server_url(None):
        raise InvalidInputError(
            "Watched questions run on this machine, and PONDER_SERVER sends runs to an "
            "engine: run `ponder watch` without it (watches on an engine are not offered yet)."
        )


def interval(every: str | float) -> float:
    """``every`` as seconds, at least :data:`SHORTEST`; a clear error otherwise."""
    try:
        seconds = float(seconds_of(every))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"--every: {exc}") from None
    if seconds < SHORTEST:
        raise InvalidInputError(f"--every: at least {SHORTEST:.0f} seconds between runs.")
    return seconds


def every_label(seconds: float) -> str:
    """An interval as people write it: 1d, 12h, 90m, 45s."""
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def watches(owner: str | None = None) -> list[Watch]:
    """Every watch (``owner``: theirs alone)."""
    return [w for w in _store().all() if owner is None or w.owner == owner]


def get(watch_id: str) -> Watch:
    return _store().get(watch_id)


def runs(watch_id: str) -> list[WatchRun]:
    """A watch's runs, oldest first."""
    return _store().runs(watch_id)


def next_due(watch: Watch) -> float:
    """When the watch runs next: at once when it never ran, else ``every`` after its latest
    run started (a failed or killed run counts: the next one waits its turn)."""
    kept = _store().runs(watch.id)
    return kept[-1].started + watch.every if kept else watch.created


def due(now: float | None = None) -> list[Watch]:
    at = time.time() if now is None else now
    return [watch for watch in _store().all() if next_due(watch) <= at]


def remove(watch_id: str) -> None:
    """Forget a watch, its snapshots, change reports and feed (its runs stay in history)."""
    _store().remove(watch_id)


def revoke_feed(watch_id: str) -> Watch:
    """A new key for the watch's served feed: the old address stops answering."""
    return _store().new_feed_key(watch_id)


def changes(watch_id: str, number: int | None = None) -> str | None:
    """The change report of a run (from 1; by default the latest that has one)."""
    store = _store()
    store.get(watch_id)  # an unknown watch is said so
    kept = store.runs(watch_id)
    numbers = [number] if number is not None else [run.number for run in reversed(kept)]
    for each in numbers:
        if (found := store.changes(watch_id, each)) is not None:
            return found
    return None


def feed_path(watch_id: str) -> Path:
    """Where the watch's Atom feed is written after each run."""
    return _store().feed_path(watch_id)


def feed(watch_id: str, address: str | None = None) -> bytes:
    """The watch's Atom feed (``address``: where it is served, for its ``self`` link)."""
    store = _store()
    watch = store.get(watch_id)
    entries = [_entry(store, watch, run) for run in store.runs(watch_id)]
    found = [entry for entry in entries if entry is not None]
    return atom(watch.id, watch.question, watch.created, found, address)


def run_due(now: float | None = None, *, force: list[str] | None = None) -> list[Outcome]:
    """Run each watch that is due (``force``: these, due or not), one after the other."""
    return asyncio.run(arun_due(now, force=force))


async def arun_due(now: float | None = None, *, force: list[str] | None = None) -> list[Outcome]:
    """Async :func:`run_due`."""
    chosen = [get(watch_id) for watch_id in force] if force else due(now)
    return [await arun(watch) for watch in chosen]


async def arun(watch: Watch, started: Callable[[str], None] | None = None) -> Outcome:
    """One run of ``watch`` now, recorded, compared with the run before it, and in its feed.
    ``started``: told the run's id as it starts (a page shows it as its owner's)."""
    store = _store()
    try:
        with store.running(watch.id):
            return await _run(store, watch, started)
    except WatchBusy as exc:
        return Outcome(watch, None, str(exc))


async def _run(store: WatchStore, watch: Watch, started: Callable[[str], None] | None) -> Outcome:
    thread_id = new_thread_id()
    run = store.begin(watch.id, thread_id)
    if started is not None:
        started(thread_id)
    try:
        report, config = await _research(watch, thread_id)
    except PonderError as exc:  # the model or a search failed: recorded, the watch goes on
        return _failed(store, watch, run, str(exc))
    except BaseException as exc:  # stopped, or a bug: recorded, then raised
        _failed(store, watch, run, f"stopped ({type(exc).__name__})")
        raise
    try:
        return await _compared(store, watch, run, report, config)
    except BaseException as exc:
        _failed(store, watch, run, f"what it read could not be kept ({type(exc).__name__})")
        raise


async def _research(watch: Watch, thread_id: str) -> tuple[Report, Configuration]:
    from ponder.api import aresearch

    # Nobody is there to answer a question, and a cached search would hide what changed.
    settings = {**watch.options, "allow_clarification": False, "cache": False}
    _here_only()
    config = Configuration.create(**settings)
    roots = list(config.docs or [])
    if roots and read_environment().index_role != "reader":
        # Brought up to date now: a search within the minute would not see the edits.
        await asyncio.to_thread(documents.index, roots, config=config)
    return await aresearch(watch.question, thread_id=thread_id, **settings), config


async def _compared(
    store: WatchStore, watch: Watch, run: WatchRun, report: Report, config: Configuration
) -> Outcome:
    """The run's snapshot kept, compared with the last run that finished, and said."""
    earlier = _last_done(store, watch.id)
    before = store.snapshot(watch.id, earlier.number) if earlier else None
    roots, hidden = list(config.docs or []), config.docs_hidden_and_symlinks
    taken = await asyncio.to_thread(snapshot.take, report, roots, before, hidden)
    store.save_snapshot(watch.id, run.number, taken)
    if earlier is None or before is None:
        cited = len(report.cited_sources())
        text = change_report.first_run(watch.question, run.number, len(taken["claims"]), cited)
        counts: dict[str, int] = {}
        headline = "First run."
    else:
        found = compare(before, taken)
        text = change_report.change_report(
            watch.question, run.number, earlier.number, earlier.started, found
        )
        counts, headline = found.counts(), change_report.headline(found)
    store.save_changes(watch.id, run.number, text)
    store.finish(watch.id, run.number, "done", changes=counts)
    _write_feed(store, watch)
    return Outcome(watch, _latest(store, watch.id), headline, report)


def _failed(store: WatchStore, watch: Watch, run: WatchRun, reason: str) -> Outcome:
    store.finish(watch.id, run.number, "failed", error=reason)
    _write_feed(store, watch)
    return Outcome(watch, _latest(store, watch.id), f"Failed: {reason}")


def _last_done(store: WatchStore, watch_id: str) -> WatchRun | None:
    """The latest run that finished: the one a new run is compared with."""
    done = [run for run in store.runs(watch_id) if run.status == "done"]
    return done[-1] if done else None


def _latest(store: WatchStore, watch_id: str) -> WatchRun:
    return store.runs(watch_id)[-1]


def _write_feed(store: WatchStore, watch: Watch) -> None:
    store.save_feed(watch.id, feed(watch.id))


def _entry(store: WatchStore, watch: Watch, run: WatchRun) -> Entry | None:
    if run.status == "running":
        return None
    at = run.ended or run.started
    if run.status == "failed":
        text = f"Run {run.number} failed: {run.error or 'no reason recorded'}."
        return Entry(run.number, at, f"Run {run.number} failed", text)
    text = store.changes(watch.id, run.number) or ""
    title = f"Run {run.number}: {_first_line(text, run)}"
    return Entry(run.number, at, title, text)


def _first_line(text: str, run: WatchRun) -> str:
    counts = run.changes
    if not counts:
        return "nothing changed" if "Nothing changed" in text else "first run"
    said = ", ".join(f"{count} {kind.replace('_', ' ')}" for kind, count in counts.items() if count)
    return said or "nothing changed"


def _store() -> WatchStore:
    return WatchStore(read_environment().machine)
