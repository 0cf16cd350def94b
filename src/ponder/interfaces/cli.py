"""The ``ponder`` command: parse arguments, call the library, render the result.

It holds no research logic. Heavy modules (pydantic, LangGraph, rich, httpx) are imported
inside the commands, so ``ponder --help`` answers at once.

Exit codes are :class:`ponder.errors.ExitCode` (explained in docs/interfaces.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ponder.choices import MODES, PROVIDERS, SEARCH_NAMES
from ponder.errors import EXIT_CODES, ExitCode, Interrupted, InvalidInputError, PonderError

EXIT_USAGE = ExitCode.USAGE
EXIT_INTERRUPTED = ExitCode.INTERRUPTED

COMMANDS = ("research", "index", "doctor", "runs", "resume", "mcp")
SEARCH_CHOICES = SEARCH_NAMES
MODE_CHOICES = MODES
PROVIDER_CHOICES = PROVIDERS
FORMAT_CHOICES = ("md", "html")

EXAMPLES = """\
examples:
  ponder "How do tides work?"
  ponder "How do tides work?" --search local --docs ~/notes --format html
  ponder "Compare RISC-V and ARM" --effort deep --model qwen3:8b
  ponder index ~/notes          ponder doctor          ponder runs
  ponder index ~/papers --embed-model nomic-embed-text
  ponder resume 20260101-120000-abc123 --answer "only the last decade"
  ponder "How do tides work?" --server http://gpu-box:2024     ponder runs --server URL

"""
EXAMPLES += "exit codes: " + " · ".join(f"{int(code)} {what}" for code, what in EXIT_CODES.items())


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line that says where to look, then exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"ponder: {message} — see `{self.prog} --help`.\n")


def build_parser() -> Parser:
    parser = Parser(
        prog="ponder",
        usage='ponder "question" [options]  |  ponder {index,doctor,runs,resume,mcp} ...',
        description="Research a question with a local model and write a cited report.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = parser.add_subparsers(
        dest="command", metavar="command", parser_class=Parser, prog="ponder"
    )

    research = commands.add_parser(
        "research", help="research a question (the default: `ponder QUESTION` works too)"
    )
    research.add_argument("question", nargs="+", help="what to research (quote it)")
    _add_run_options(research)
    _add_output_options(research)

    index = commands.add_parser("index", help="build or refresh the local index of documents")
    index.add_argument("paths", nargs="+", metavar="PATH", help="folders or files to index")
    index.add_argument(
        "--embed-model",
        metavar="MODEL",
        help="also embed the passages with this Ollama model, for semantic search",
    )
    index.add_argument("--ollama-url", metavar="URL", help="where Ollama listens")

    doctor = commands.add_parser("doctor", help="check Ollama, the model, search and the index")
    _add_run_options(doctor)

    runs = commands.add_parser("runs", help="list recent runs with their status")
    runs.add_argument("--limit", type=int, default=20, help="how many runs (default 20)")
    runs.add_argument("--json", action="store_true", help="print JSON lines")
    runs.add_argument("--server", metavar="URL", help="list the runs of this LangGraph Server")

    mcp = commands.add_parser("mcp", help="serve ponder to MCP clients (stdio, or --http PORT)")
    mcp.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on this port")
    mcp.add_argument("--host", default="127.0.0.1", help="with --http: where to listen")

    resume = commands.add_parser("resume", help="finish an interrupted or paused run")
    resume.add_argument("thread_id", metavar="ID", help="the run id (see `ponder runs`)")
    resume.add_argument("--answer", help="answer to the run's clarifying question")
    resume.add_argument("--model", help="continue with another Ollama model")
    resume.add_argument("--ollama-url", metavar="URL", help="continue with Ollama elsewhere")
    resume.add_argument("--server", metavar="URL", help="the LangGraph Server the run is on")
    resume.add_argument(
        "--force",
        action="store_true",
        help="continue a run the shared database says another machine is running",
    )
    _add_output_options(resume)
    return parser


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("research options")
    group.add_argument("--model", help="Ollama model, e.g. gemma3:4b")
    group.add_argument(
        "--search",
        type=_search_names,
        metavar="NAME[,NAME]",
        help=f"search backend(s): {', '.join(SEARCH_CHOICES)}; several comma-separated",
    )
    group.add_argument(
        "--wikipedia-lang",
        metavar="LANG",
        help="Wikipedia edition (en, de, …); default: the question's language",
    )
    group.add_argument(
        "--docs", action="append", metavar="PATH", help="your documents (repeatable)"
    )
    group.add_argument("--loops", type=int, metavar="N", help="maximum search rounds")
    group.add_argument("--mode", choices=MODE_CHOICES, help="loop, deep, or auto (default)")
    group.add_argument(
        "--effort",
        choices=tuple(EFFORT_PRESETS),
        help="preset for rounds, queries per round and researchers; explicit flags win",
    )
    group.add_argument("--ollama-url", metavar="URL", help="where Ollama listens")
    group.add_argument(
        "--provider",
        choices=PROVIDER_CHOICES,
        help="ollama (default), or openai: LM Studio, llama-server, vLLM, LocalAI",
    )
    group.add_argument(
        "--openai-url",
        metavar="URL",
        help="with --provider openai: the server's /v1 address (LM Studio :1234, llama-server "
        ":8080)",
    )
    group.add_argument(
        "--server",
        metavar="URL",
        help="run on this LangGraph Server (also PONDER_SERVER); the report is saved here",
    )
    group.add_argument(
        "--embed-model",
        metavar="MODEL",
        help="semantic search over --docs with this Ollama embedding model (off by default)",
    )
    group.add_argument("--searxng-url", metavar="URL", help="your SearXNG instance")
    group.add_argument(
        "--fallback",
        action="store_true",
        help="with --search searxng, try DuckDuckGo when SearXNG fails (off: stay private)",
    )
    group.add_argument(
        "--full-pages", action="store_true", help="read whole web pages, not only snippets"
    )
    group.add_argument(
        "--no-clarify", action="store_true", help="never stop to ask a clarifying question"
    )
    group.add_argument("--no-cache", action="store_true", help="do not cache search results")


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--out", metavar="FILE", help="report file (default: from the question)")
    group.add_argument(
        "--format", choices=FORMAT_CHOICES, help="md (default) or a self-contained html page"
    )
    group.add_argument("--json", action="store_true", help="print the result as JSON")


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
        "mcp": _mcp,
    }
    return handlers[args.command](args)


def _research(args: argparse.Namespace) -> int:
    from ponder.interfaces.run import research_command

    return research_command(" ".join(args.question), run_options(args), args)


def _resume(args: argparse.Namespace) -> int:
    from ponder.interfaces.run import resume_command

    return resume_command(args.thread_id, args.answer, args)


def _doctor(args: argparse.Namespace) -> int:
    from ponder.interfaces.doctor import doctor_command

    return doctor_command(run_options(args))


def _index(args: argparse.Namespace) -> int:
    from ponder.interfaces.manage import index_command

    flags = {"embed_model": args.embed_model, "ollama_base_url": args.ollama_url}
    options = {key: value for key, value in flags.items() if value is not None}
    return index_command(require_paths(args.paths, "PATH"), options)


def _mcp(args: argparse.Namespace) -> int:
    from ponder.interfaces.mcp_server import serve

    return serve(args.http, args.host)


def _runs(args: argparse.Namespace) -> int:
    from ponder.interfaces.manage import runs_command

    return runs_command(args.limit, args.json, args.server)


# -- options -> configuration ----------------------------------------------------------

EFFORT_PRESETS: dict[str, dict[str, int]] = {
    "quick": {"max_loops": 1, "queries_per_round": 2, "max_concurrent_researchers": 2},
    "standard": {"max_loops": 3, "queries_per_round": 3, "max_concurrent_researchers": 3},
    "deep": {"max_loops": 5, "queries_per_round": 4, "max_concurrent_researchers": 5},
}


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """Configuration keywords from the flags that were given (the rest: env, then defaults).

    ``--effort`` sets a preset first, so an explicit ``--loops`` wins over it.
    """
    options: dict[str, Any] = dict(EFFORT_PRESETS[args.effort]) if args.effort else {}
    flags = {
        "model": args.model,
        "search": args.search,
        "max_loops": args.loops,
        "mode": args.mode,
        "ollama_base_url": args.ollama_url,
        "searxng_url": args.searxng_url,
        "embed_model": args.embed_model,
        "provider": args.provider,
        "openai_base_url": args.openai_url,
        "wikipedia_lang": args.wikipedia_lang,
    }
    options.update({key: value for key, value in flags.items() if value is not None})
    if args.docs:
        # A run on a server reads the server's disk: its paths are not checked here.
        from ponder.api import server_url

        remote = server_url(getattr(args, "server", None))
        options["docs"] = list(args.docs) if remote else require_paths(args.docs, "--docs")
    if args.no_clarify:
        options["allow_clarification"] = False
    if args.no_cache:
        options["cache"] = False
    if args.full_pages:
        options["fetch_full_page"] = True
    if args.fallback:
        options["fallback"] = True
    return options


def _search_names(value: str) -> str:
    """``--search a,b``: every name a backend's, checked before anything runs."""
    names = [part.strip().lower() for part in value.split(",") if part.strip()]
    unknown = [name for name in names if name not in SEARCH_CHOICES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown backend {', '.join(unknown) or repr(value)} "
            f"(choose from {', '.join(SEARCH_CHOICES)}, or several comma-separated)"
        )
    return ",".join(dict.fromkeys(names))


def require_paths(paths: list[str], flag: str) -> list[str]:
    """Paths that exist, expanded; a missing one is a usage error before anything runs."""
    from pathlib import Path

    resolved = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise InvalidInputError(f"{flag} {raw}: no such file or folder — check the path.")
        resolved.append(str(path.resolve()))
    return resolved


def _one_line(message: str) -> str:
    return " ".join(message.split())


class _Version(argparse.Action):
    """``--version``, looked up only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("ponder")
        except PackageNotFoundError:
            found = "(not installed)"
        parser.exit(0, f"ponder {found}\n")


if __name__ == "__main__":
    sys.exit(main())
