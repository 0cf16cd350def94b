"""`ponder QUESTION` and `ponder resume ID`: drive a run with live progress, then deliver it
(:mod:`.output`).

Input is checked before anything starts, so a bad question, option or path writes
nothing. Ctrl-C (or SIGTERM/SIGHUP from a closed terminal) stops the run at once; the last
finished step is already in the checkpoint, and the command that resumes it is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

from rich.console import Console

from ponder.core.errors import ConfigurationError, Interrupted, InvalidInputError
from ponder.core.events import ProgressEvent
from ponder.core.result import Report
from ponder.interfaces.cli.flags import RUN_FLAGS
from ponder.interfaces.cli.output import deliver, output_target, say
from ponder.interfaces.cli.progress import ProgressView

# Each setting's flag, as its field declares it (the generated RUN_FLAGS): messages name
# the flag a user typed, not the field.
FLAGS = {field: flag.name for field, flag in RUN_FLAGS.items()}


def research_command(question: str, options: dict[str, Any], args: argparse.Namespace) -> int:
    from ponder.api import clean_topic, new_thread_id, server_url, stream

    topic = clean_topic(question)
    server = server_url(args.server)
    check_options(options, remote=server is not None)
    fmt, out = output_target(topic, args.out, args.format)
    thread_id = None if server else new_thread_id()  # a server names its runs itself
    view = make_view()
    events = stream(topic, thread_id=thread_id, ask=make_ask(view), server=server, **options)
    report = drive(events, view, thread_id, server)
    return deliver(report, fmt, out, args.json, view, server)


def resume_command(thread_id: str, answer: str | None, args: argparse.Namespace) -> int:
    from ponder.api import server_url, stream_resume
    from ponder.api.history import run
    from ponder.core.errors import RunNotFoundError

    server = server_url(args.server)
    topic = ""
    if server is None:
        record = run(thread_id)
        if record is None:
            raise RunNotFoundError(thread_id)
        topic = record.topic
    fmt, out = output_target(topic or "report", args.out, args.format)
    view = make_view()
    overrides = {
        key: value
        for key, value in (("model", args.model), ("ollama_base_url", args.ollama_base_url))
        if value is not None
    }
    if server is not None:
        from ponder.settings.callers import refuse_operator_fields

        refuse_operator_fields(overrides, FLAGS)
    events = stream_resume(
        thread_id, answer, ask=make_ask(view), force=args.force, server=server, **overrides
    )
    report = drive(events, view, thread_id, server)
    return deliver(report, fmt, out, args.json, view, server)


# -- checking input ----------------------------------------------------------------------


def check_options(options: dict[str, Any], remote: bool = False) -> None:
    """Validate the configuration now, naming flags rather than field names. What only
    the machine that runs the research can check (documents, keys) is left to the server
    when the run is ``remote``."""
    from ponder.settings.callers import refuse_operator_fields
    from ponder.settings.configuration import Configuration

    if remote:  # a server's operator sets those; say so before asking it
        refuse_operator_fields(options, FLAGS)
    try:
        settings = Configuration.create(**options)
    except ConfigurationError as exc:
        message = str(exc)
        for field, flag in FLAGS.items():
            message = message.replace(f"{field}:", f"{flag}:")
        raise ConfigurationError(message) from None
    if remote:
        return
    if "local" in settings.searches and not settings.docs and not settings.library:
        raise InvalidInputError(
            f"--search {settings.search} needs your documents — add --docs PATH or --library FILE."
        )
    from ponder.api.probe import search_ready

    search_ready(settings)  # no Tavily key: say so before the run starts


# -- running -----------------------------------------------------------------------------


def make_view() -> ProgressView:
    live = sys.stdout.isatty() and sys.stderr.isatty()
    return ProgressView(Console(stderr=True), enabled=live)


def make_ask(view: ProgressView) -> Any:
    """In a terminal, clarifying questions are asked there; otherwise the run pauses."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> str:
        with view.paused(), default_sigint():
            view.console.print(f"[bold]ponder asks:[/] {question}", highlight=False)
            try:
                return view.console.input("[bold]your answer> [/]").strip()
            except EOFError:  # stdin closed (Ctrl-D): go on without an answer
                return ""

    return ask


@contextlib.contextmanager
def default_sigint() -> Iterator[None]:
    """While blocked in input(), let Ctrl-C raise at once (asyncio's handler would wait)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def drive(
    events: AsyncIterator[ProgressEvent | Report],
    view: ProgressView,
    thread_id: str | None,
    server: str | None = None,
) -> Report:
    """Run the event stream to its report, showing progress; Ctrl-C → Interrupted.

    A run on a server goes on there when the terminal stops following it; its id arrives
    with the first event.
    """
    known = {"thread_id": thread_id or ""}

    async def consume() -> Report:
        report: Report | None = None
        with view:
            async for item in events:
                if isinstance(item, Report):
                    report = item
                elif item.kind == "remote_run":
                    known["thread_id"] = str(item.data["thread_id"])
                else:
                    view.update(item)
        if report is None:
            raise RuntimeError("the run ended without a report")
        return report

    try:
        with terminate_as_interrupt():
            return asyncio.run(consume())
    except KeyboardInterrupt:
        run_id = known["thread_id"]
        if server and not run_id:
            say(f"\nponder: stopped before {server} started the run; nothing runs there.")
        elif server:
            say(
                f"\nponder: stopped following — the run goes on at {server}. Follow it or fetch "
                f"its report with: ponder resume {run_id} --server {server}"
            )
        else:
            say(f"\nponder: interrupted — the run is saved. Resume it with: ponder resume {run_id}")
        raise Interrupted(run_id) from None


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP (a closed terminal) stop the run the way Ctrl-C does."""
    wanted = [sig for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig]
    previous = {sig: signal.signal(sig, _raise_sigint) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _raise_sigint(_signum: int, _frame: Any) -> None:
    signal.raise_signal(signal.SIGINT)
