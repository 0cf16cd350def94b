"""A watch's change reports and its Atom feed, as ``ponder watch changes``, ``ponder watch
feed`` and the page's feed route read them (:mod:`ponder.api.watches` writes them)."""

from __future__ import annotations

from pathlib import Path

from ponder.services.storage.watches import Watch, WatchRun, WatchStore
from ponder.services.watch.feed import LATEST, Entry, atom
from ponder.settings.environment import read_environment


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
    entries = [_entry(store, watch, run) for run in store.runs(watch_id)[-LATEST:]]
    found = [entry for entry in entries if entry is not None]
    return atom(watch.id, watch.question, watch.created, found, address)


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
