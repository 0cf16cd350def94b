"""Where a report goes and how it is shown: the file (named from the question unless
``--out`` says, in ``--format`` or the format its suffix names: interfaces/exports), the
report or its JSON on stdout, one line on stderr saying where it is."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from rich.console import Console

from ponder.core.errors import InvalidInputError, StorageError
from ponder.core.result import Report
from ponder.core.topic import slug
from ponder.core.untrusted import printable
from ponder.interfaces.cli.progress import ProgressView
from ponder.interfaces.exports import export, kind_of_path


def output_target(topic: str, out: str | None, fmt: str | None) -> tuple[str, Path | None]:
    """The report format and the explicit --out path (None: named from the question later)."""
    if out is None:
        return fmt or "md", None
    path = Path(out).expanduser()
    if path.is_dir():
        raise InvalidInputError(
            f"--out {out} is a folder — give a file name, e.g. {out}/report.md."
        )
    if not path.parent.exists():
        raise InvalidInputError(
            f"--out {out}: the folder {path.parent} does not exist — create it."
        )
    if fmt is None:
        found = kind_of_path(path.name)
        fmt = found.name if found else "md"
    return fmt, path


def default_path(topic: str, fmt: str, folder: Path | None = None) -> Path:
    """``<slug>.<fmt>`` in the current folder; never overwrites an earlier report."""
    base = (folder or Path.cwd()) / slug(topic)
    path = base.with_name(f"{base.name}.{fmt}")
    counter = 2
    while path.exists():
        path = base.with_name(f"{base.name}-{counter}.{fmt}")
        counter += 1
    return path


def deliver(
    report: Report,
    fmt: str,
    out: Path | None,
    as_json: bool,
    view: ProgressView,
    server: str | None = None,
) -> int:
    """Write the report file, print the report (or JSON), and say where the file is."""
    from ponder.api.history import saved

    where = f" --server {server}" if server else ""

    path = out or default_path(report.topic, fmt)
    content = export(report, fmt)
    try:
        path.write_bytes(content)
    except OSError as exc:
        raise StorageError(
            f"Cannot write the report to {path} ({exc.strerror or exc}) — choose another --out; "
            f"the run is saved, `ponder resume {report.thread_id}{where}` prints it again."
        ) from None
    saved(report.thread_id, str(path))
    if as_json:
        payload = {"path": str(path), **report.model_dump(mode="json")}
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    else:
        show_report(report)
    if view.enabled:
        for repeated in view.state.repeated():  # shown once as it came; now with its count
            say(f"warning: {repeated}")
        say(view.summary())
    say(f"Report saved to {display(path)} (run {report.thread_id})")
    return 0


def show_report(report: Report) -> None:
    markdown = printable(report.markdown)  # a model can be led to write escape sequences too
    if sys.stdout.isatty():
        from rich.markdown import Markdown

        Console().print(Markdown(markdown))
    else:
        sys.stdout.write(markdown if markdown.endswith("\n") else markdown + "\n")
    sys.stdout.flush()


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def say(message: str) -> None:
    """A line on stderr; a closed terminal (SIGHUP) must not turn into a traceback."""
    with contextlib.suppress(OSError):
        print(printable(message), file=sys.stderr, flush=True)
