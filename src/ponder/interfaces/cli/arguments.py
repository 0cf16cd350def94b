"""The ``ponder`` command's arguments: its subcommands, flags, help and examples.

Only ``argparse``, :mod:`ponder.settings.choices`, :mod:`ponder.settings.search_backends` (the
names the backends registered) and :mod:`ponder.core.errors` are imported, so ``ponder --help``
answers at once.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from ponder.core.errors import EXIT_CODES, ExitCode
from ponder.settings import search_backends
from ponder.settings.choices import MODES, PROVIDERS

EXIT_USAGE = ExitCode.USAGE

COMMANDS = ("research", "index", "doctor", "runs", "resume", "mcp", "ui")
MODE_CHOICES = MODES
PROVIDER_CHOICES = PROVIDERS
FORMAT_CHOICES = ("md", "html")
# --effort: a preset the explicit flags override (run_options applies it first).
EFFORT_PRESETS: dict[str, dict[str, int]] = {
    "quick": {"max_loops": 1, "queries_per_round": 2, "max_concurrent_researchers": 2},
    "standard": {"max_loops": 3, "queries_per_round": 3, "max_concurrent_researchers": 3},
    "deep": {"max_loops": 5, "queries_per_round": 4, "max_concurrent_researchers": 5},
}

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
        usage='ponder "question" [options]  |  ponder {index,doctor,runs,resume,mcp,ui} ...',
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

    ui = commands.add_parser("ui", help="research in the browser: a local web page")
    ui.add_argument("--port", type=int, default=8765, help="where to listen (default 8765)")
    ui.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")

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
        help=f"search backend(s): {', '.join(search_backends.names())}; several comma-separated",
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


def _search_names(value: str) -> str:
    """``--search a,b``: every name a backend's, checked before anything runs."""
    names = [part.strip().lower() for part in value.split(",") if part.strip()]
    known = search_backends.names()
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown backend {', '.join(unknown) or repr(value)} "
            f"(choose from {', '.join(known)}, or several comma-separated)"
        )
    return ",".join(dict.fromkeys(names))


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
