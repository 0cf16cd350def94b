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
from ponder.api.watch_feed import changes, feed, feed_path
from ponder.core.errors import CallerRefusedError, InvalidInputError, PonderError
from ponder.core.redact import was_redacted
from ponder.core.result import Report
from ponder.core.topic import clean_topic
from ponder.services.storage.watches import Watch, WatchBusy, WatchRun, WatchStore
from ponder.services.watch import change_report, snapshot
from ponder.services.watch.changes import compare
from ponder.settings.caller_view import CallerView
from ponder.settings.callers import operator_configuration, served_options
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment
from ponder.settings.research_loop import seconds_of
from ponder.settings.users import OPERATOR, UI_TOKENS, server_tokens

SHORTEST = 60.0  # seconds between two runs of a watch on this machine
LONGEST = 365 * 86400.0

__all__ = [
    "Outcome", "Watch", "WatchRun", "add", "arun", "changes", "due", "feed", "feed_path",
    "get", "next_due", "remove", "revoke_feed", "run_due", "runs", "watches",
]  # fmt: skip


@dataclass
class Outcome:
    """What one run of a watch did."""

    watch: Watch
    run: WatchRun | None  # None: the watch was running in another process
    headline: str
    report: Report | None = None


def add(
    question: str,
    every: str | float,
    *,
    owner: str = "",
    asked: dict[str, Any] | None = None,
    own: list[str] | None = None,
    **config: Any,
) -> Watch:
    """Watch ``question``: research it every ``every`` (seconds, or 12h, 1d, 1w) with these
    :class:`Configuration` settings (the rest from the environment at each run). A shared
    page's caller is its ``owner``; what they ``asked`` is vetted again at each run (with
    their ``own`` folders), so a folder, model or ceiling the operator withdrew since holds."""
    clean = clean_topic(question)
    seconds = interval(every)
    _here_only()
    Configuration.create(**config)  # a bad setting is refused now, not at the first run
    return _store().add(clean, seconds, config, owner, asked, own)


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
    if not SHORTEST <= seconds <= LONGEST:
        raise InvalidInputError(
            f"--every: between {every_label(SHORTEST)} and {every_label(LONGEST)} between runs."
        )
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


Started = Callable[[Watch, str], None]


def run_due(
    now: float | None = None, *, force: list[str] | None = None, started: Started | None = None
) -> list[Outcome]:
    """Run each watch that is due (``force``: these, due or not), one after the other;
    ``started``: told each run's watch and id as it starts."""
    return asyncio.run(arun_due(now, force=force, started=started))


async def arun_due(
    now: float | None = None, *, force: list[str] | None = None, started: Started | None = None
) -> list[Outcome]:
    """Async :func:`run_due`."""
    chosen = [get(watch_id) for watch_id in force] if force else due(now)
    return [await arun(watch, started) for watch in chosen]


async def arun(watch: Watch, started: Started | None = None) -> Outcome:
    """One run of ``watch`` now, recorded, compared with the run before it, and in its feed.
    ``started``: told the watch and the run's id as it starts (a page shows the run as its
    owner's)."""
    store = _store()
    try:
        with store.running(watch.id):
            return await _run(store, watch, started)
    except WatchBusy as exc:
        return Outcome(watch, None, str(exc))


async def _run(store: WatchStore, watch: Watch, started: Started | None) -> Outcome:
    thread_id = new_thread_id()
    run = store.begin(watch.id, thread_id)
    if started is not None:
        started(watch, thread_id)
    try:
        report, config = await _research(watch, thread_id)
    except PonderError as exc:  # the model or a search failed: recorded, the watch goes on
        return _failed(store, watch, run, str(exc))
    except OSError as exc:  # a folder or the disk failed: the same
        return _failed(store, watch, run, f"cannot read or write: {exc}")
    except BaseException as exc:  # stopped, or a bug: recorded, then raised
        _failed(store, watch, run, f"stopped ({type(exc).__name__})")
        raise
    try:
        return await _compared(store, watch, run, report, config)
    except OSError as exc:
        return _failed(store, watch, run, f"what it read could not be kept: {exc}")
    except BaseException as exc:
        _failed(store, watch, run, f"what it read could not be kept ({type(exc).__name__})")
        raise


async def _research(watch: Watch, thread_id: str) -> tuple[Report, Configuration]:
    from ponder.api import aresearch

    # Nobody is there to answer a question, and a cached search would hide what changed.
    settings = {**_options(watch), "allow_clarification": False, "cache": False}
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


def _options(watch: Watch) -> dict[str, Any]:
    """The settings a run of the watch runs with: the operator's, as stored (a value whose
    credentials were redacted comes from the environment); a caller's, asked again of
    today's operator settings, while the caller is still one of the page's users."""
    if not _callers(watch):
        return {k: v for k, v in watch.options.items() if not was_redacted(v)}
    users = server_tokens(read_environment().secret(UI_TOKENS) or "")
    if watch.owner not in users:
        raise CallerRefusedError(
            f"{watch.owner} is no longer one of this server's users ({UI_TOKENS}): "
            "their watch does not run."
        )
    return served_options(watch.asked or {}, own=[Path(path) for path in watch.own])


def _callers(watch: Watch) -> bool:
    """A watch a caller of a shared page added (not the operator's, nor the command line's)."""
    return watch.owner not in ("", OPERATOR)


def _failed(store: WatchStore, watch: Watch, run: WatchRun, reason: str) -> Outcome:
    if _callers(watch):  # the caller reads it: the operator's hosts and files unnamed
        view = CallerView(operator_configuration(), [Path(path) for path in watch.own])
        reason = view.text(reason)
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


def _store() -> WatchStore:
    return WatchStore(read_environment().machine)
