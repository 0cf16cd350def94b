"""The ``ponder`` command: parse arguments, call the library, render the result.

It holds no research logic. The arguments are :mod:`.arguments`; heavy modules (pydantic,
LangGraph, rich, httpx) are imported inside the commands, so ``ponder --help`` answers at
once.

Exit codes are :class:`ponder.core.errors.ExitCode` (explained in docs/interfaces.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ponder.core.errors import ExitCode, Interrupted, InvalidInputError, PonderError
from ponder.interfaces.cli.arguments import COMMANDS, EFFORT_PRESETS, EXIT_USAGE, build_parser
from ponder.interfaces.cli.flags import RUN_FLAGS

EXIT_INTERRUPTED = ExitCode.INTERRUPTED


def with_default_command(argv: Sequence[str]) -> list[str]:
    """`ponder "question"` means `ponder research "question"`.

    Only the first word decides: a subcommand name or a top-level flag (--help, --version)
    is left alone; anything else — the question or a research option — gets ``research``.
    """
    args = list(argv)
    if not args or args[0] in COMMANDS or args[0] in ("-h", "--help", "--version"):
        return args
    return ["research", *args]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ponder`` console script; returns the exit code."""
    args_list = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not args_list:
        print(
            'ponder: give a question to research, e.g. `ponder "How do tides work?"`, '
            "or see `ponder --help`.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    args = parser.parse_args(with_default_command(args_list))
    try:
        return _dispatch(args)
    except Interrupted:
        return EXIT_INTERRUPTED  # the resume hint is already printed
    except PonderError as exc:
        print(f"ponder: {_one_line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `ponder runs | head`: the reader has all it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # outside a run (a run prints its own resume hint)
        print("\nponder: interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED


def _dispatch(args: argparse.Namespace) -> int:
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "research": _research,
        "resume": _resume,
        "index": _index,
        "doctor": _doctor,
        "runs": _runs,
        "watch": _watch,
        "mcp": _mcp,
        "ui": _ui,
    }
    return handlers[args.command](args)


def _research(args: argparse.Namespace) -> int:
    from ponder.interfaces.cli.research import research_command

    return research_command(" ".join(args.question), run_options(args), args)


def _resume(args: argparse.Namespace) -> int:
    from ponder.interfaces.cli.research import resume_command

    return resume_command(args.thread_id, args.answer, args)


def _doctor(args: argparse.Namespace) -> int:
    from ponder.interfaces.doctor import doctor_command

    return doctor_command(run_options(args))


def _index(args: argparse.Namespace) -> int:
    from ponder.interfaces.cli.manage import index_command

    flags = {"embed_model": args.embed_model, "ollama_base_url": args.ollama_base_url}
    options = {key: value for key, value in flags.items() if value is not None}
    return index_command(require_paths(args.paths, "PATH"), options, as_json=args.json)


def _mcp(args: argparse.Namespace) -> int:
    from ponder.interfaces.mcp.server import serve

    return serve(args.http, args.host)


def _ui(args: argparse.Namespace) -> int:
    from ponder.interfaces.ui import serve

    return serve(args.host, args.port)


def _watch(args: argparse.Namespace) -> int:
    from ponder.interfaces.cli.watch import watch_command

    return watch_command(args, run_options(args) if args.watch_command == "add" else {})


def _runs(args: argparse.Namespace) -> int:
    from ponder.interfaces.cli.manage import runs_command

    return runs_command(args.limit, args.json, args.server)


# -- options -> configuration ----------------------------------------------------------


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """Configuration keywords from the flags that were given (the rest: env, then defaults).

    Each setting's flag stores its value under the field's name. ``--effort`` sets a preset
    first, so an explicit ``--loops`` wins over it.
    """
    options: dict[str, Any] = dict(EFFORT_PRESETS[args.effort]) if args.effort else {}
    given = {name: getattr(args, name, None) for name in RUN_FLAGS if name not in _PATHS}
    options.update({name: value for name, value in given.items() if value is not None})
    if args.docs:
        # A run on a server reads the server's disk: its paths are not checked here.
        from ponder.api import server_url

        remote = server_url(getattr(args, "server", None))
        options["docs"] = list(args.docs) if remote else require_paths(args.docs, "--docs")
    if getattr(args, "library", None):  # an operator's setting: a server refuses it anyway
        options["library"] = require_paths(args.library, "--library")
    return options


_PATHS = ("docs", "library")  # flags whose paths are checked and made absolute here


def require_paths(paths: list[str], flag: str) -> list[str]:
    """Paths that exist, expanded; a missing one is a usage error before anything runs."""
    from pathlib import Path

    from ponder.settings.paths import path_problem

    resolved = []
    for raw in paths:
        if (problem := path_problem(raw)) is not None:
            raise InvalidInputError(f"{flag}: {problem}.")
        path = Path(raw).expanduser()
        if not path.exists():
            raise InvalidInputError(f"{flag} {raw}: no such file or folder — check the path.")
        resolved.append(str(path.resolve()))
    return resolved


def _one_line(message: str) -> str:
    return " ".join(message.split())


if __name__ == "__main__":
    sys.exit(main())
