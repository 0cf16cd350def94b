"""`ponder watch`: questions researched again on a schedule, each run saying what changed.

``ponder watch run`` runs what is due and exits, so cron or a systemd timer schedules it;
it exits 1 when a run failed (cron mails what it printed), 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from typing import Any

from ponder.core.errors import ExitCode


def watch_command(args: argparse.Namespace, options: dict[str, Any]) -> int:
    handlers = {
        "add": _add, "list": _list, "run": _run, "changes": _changes,
        "feed": _feed, "remove": _remove,
    }  # fmt: skip
    return handlers[args.watch_command](args, options)


def _add(args: argparse.Namespace, options: dict[str, Any]) -> int:
    from ponder.api import watches

    if getattr(args, "server", None):
        print(
            "ponder: watched questions run on this machine: leave out --server (watches on "
            "an engine are not offered yet).",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    watch = watches.add(" ".join(args.question), args.every, **options)
    print(f"Watching {watch.id}: {watch.question} (every {watches.every_label(watch.every)}).")
    print("Run what is due with `ponder watch run` (from cron or a systemd timer), e.g.:")
    print("  */15 * * * *  ponder watch run")
    return 0


def _list(args: argparse.Namespace, _options: dict[str, Any]) -> int:
    from ponder.api import watches

    found = watches.watches()
    if args.json:
        for watch in found:
            kept = watches.runs(watch.id)
            line = {**asdict(watch), "next_due": watches.next_due(watch), "runs": len(kept)}
            line.pop("feed_key")  # the served feed's key: shown by `ponder watch feed` alone
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        return 0
    if not found:
        print('No watches yet — add one with: ponder watch add "your question" --every 1d')
        return 0
    width = max(len(watch.id) for watch in found)
    print(f"{'ID':<{width}}  {'EVERY':<6}  {'NEXT':<16}  {'LAST RUN':<10}  QUESTION")
    for watch in found:
        kept = watches.runs(watch.id)
        last = f"{kept[-1].number}: {kept[-1].status}" if kept else "none yet"
        due = time.strftime("%Y-%m-%d %H:%M", time.localtime(watches.next_due(watch)))
        question = watch.question if len(watch.question) <= 50 else watch.question[:49] + "…"
        every = watches.every_label(watch.every)
        print(f"{watch.id:<{width}}  {every:<6}  {due:<16}  {last:<10}  {question}")
    return 0


def _run(args: argparse.Namespace, _options: dict[str, Any]) -> int:
    from ponder.api import watches
    from ponder.interfaces.ui.store import watch_run_owned

    outcomes = watches.run_due(force=list(args.ids) or None, started=watch_run_owned)
    if not outcomes:
        print("Nothing is due.")
    failed = False
    for outcome in outcomes:
        run = outcome.run
        failed = failed or (run is not None and run.status == "failed")
        number = f" run {run.number}" if run else ""
        print(f"{outcome.watch.id}{number}: {outcome.watch.question}\n  {outcome.headline}")
        if run is not None and run.status == "done":
            print(f"  See it with: ponder watch changes {outcome.watch.id}")
    return ExitCode.ERROR if failed else 0


def _changes(args: argparse.Namespace, _options: dict[str, Any]) -> int:
    from ponder.api import watches

    text = watches.changes(args.id, args.run)
    if text is None:
        print(f"No change report yet — run the watch with: ponder watch run {args.id}")
        return 0
    print(text)
    return 0


def _feed(args: argparse.Namespace, _options: dict[str, Any]) -> int:
    from ponder.api import watches

    watch = watches.revoke_feed(args.id) if args.new_key else watches.get(args.id)
    path = watches.feed_path(watch.id)
    print(f"Feed file: {path}")
    print(f"Served by `ponder ui` at: /feeds/{watch.id}/{watch.feed_key}.atom")
    if args.new_key:
        print("The old address answers nothing from now on.")
    return 0


def _remove(args: argparse.Namespace, _options: dict[str, Any]) -> int:
    from ponder.api import watches

    watches.remove(args.id)
    print(f"Stopped watching {args.id} (its runs stay in `ponder runs`).")
    return 0
