"""The ``ponder`` command's arguments: its subcommands, flags, help and examples.

A flag that sets a setting is the setting's own (:mod:`.flags`, generated from the fields'
declarations): its name, help and how it is read are declared once, with the field, and its
value lands under the field's name. Only ``argparse``, :mod:`ponder.settings.search_backends`
(the names the backends registered), :mod:`ponder.settings.flag`,
:mod:`ponder.core.errors` and the export formats' names are imported, so ``ponder --help``
answers at once.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from ponder.core.errors import EXIT_CODES, ExitCode
from ponder.interfaces.cli.flags import MACHINE_FLAGS, RUN_FLAGS
from ponder.interfaces.exports import NAMES as EXPORT_NAMES
from ponder.settings import search_backends
from ponder.settings.flag import Flag

EXIT_USAGE = ExitCode.USAGE

COMMANDS = ("research", "index", "doctor", "runs", "resume", "watch", "mcp", "ui")
FORMAT_CHOICES = EXPORT_NAMES  # md, html, pdf, docx, odt, bib, ris, csl.json
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
  ponder "How do tides work?" --format pdf        ponder resume ID --format bib
  ponder "Compare RISC-V and ARM" --effort deep --model qwen3:8b
  ponder index ~/notes          ponder doctor          ponder runs
  ponder index ~/papers --embed-model nomic-embed-text
  ponder resume 20260101-120000-abc123 --answer "only the last decade"
  ponder "How do tides work?" --server http://gpu-box:2024     ponder runs --server URL
  ponder watch add "What is new in asyncio?" --every 1d --docs ~/notes
  ponder watch run              ponder watch changes ID

"""
EXAMPLES += "exit codes: " + " · ".join(f"{int(code)} {what}" for code, what in EXIT_CODES.items())


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line that says where to look, then exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"ponder: {message} — see `{self.prog} --help`.\n")


def build_parser() -> Parser:
    parser = Parser(
        prog="ponder",
        usage='ponder "question" [options]  |  ponder {index,doctor,runs,resume,watch,mcp,ui} ...',
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
    embed = "also embed the passages with this Ollama model, for semantic search"
    add_setting(index, "embed_model", help=embed)
    add_setting(index, "ollama_base_url")
    index.add_argument(
        "--json", action="store_true", help="print what was indexed and skipped as JSON"
    )

    doctor = commands.add_parser("doctor", help="check Ollama, the model, search and the index")
    _add_run_options(doctor)

    runs = commands.add_parser("runs", help="list recent runs with their status")
    runs.add_argument("--limit", type=int, default=20, help="how many runs (default 20)")
    runs.add_argument("--json", action="store_true", help="print JSON lines")
    add_setting(runs, "server", help="list the runs of this LangGraph Server")

    mcp = commands.add_parser("mcp", help="serve ponder to MCP clients (stdio, or --http PORT)")
    mcp.add_argument("--http", type=int, metavar="PORT", help="streamable HTTP on this port")
    mcp.add_argument("--host", default="127.0.0.1", help="with --http: where to listen")

    ui = commands.add_parser("ui", help="research in the browser: a local web page")
    ui.add_argument("--port", type=int, default=8765, help="where to listen (default 8765)")
    ui.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")

    resume = commands.add_parser("resume", help="finish an interrupted or paused run")
    resume.add_argument("thread_id", metavar="ID", help="the run id (see `ponder runs`)")
    resume.add_argument("--answer", help="answer to the run's clarifying question")
    add_setting(resume, "model", help="continue with another Ollama model")
    add_setting(resume, "ollama_base_url", help="continue with Ollama elsewhere")
    add_setting(resume, "server", help="the LangGraph Server the run is on")
    resume.add_argument(
        "--force",
        action="store_true",
        help="take over a run another process holds now, without waiting for its claim to "
        "run out (it stops at its next step)",
    )
    _add_output_options(resume)
    _add_watch(commands)
    return parser


def _add_watch(commands: Any) -> None:
    watch = commands.add_parser(
        "watch", help="research a question again on a schedule, and say what changed"
    )
    actions = watch.add_subparsers(
        dest="watch_command", metavar="action", parser_class=Parser, required=True
    )
    add = actions.add_parser("add", help="watch a question (with a run's search settings)")
    add.add_argument("question", nargs="+", help="what to research (quote it)")
    add.add_argument(
        "--every", required=True, metavar="DURATION", help="how often: 12h, 1d, 1w (at least 1m)"
    )
    _add_run_options(add)
    listed = actions.add_parser("list", help="the watches, when each runs next, its last run")
    listed.add_argument("--json", action="store_true", help="print JSON lines")
    run = actions.add_parser(
        "run", help="run the watches that are due (for cron or a systemd timer)"
    )
    run.add_argument("ids", nargs="*", metavar="ID", help="run these now, due or not")
    changes = actions.add_parser("changes", help="print what changed at a watch's latest run")
    changes.add_argument("id", metavar="ID")
    changes.add_argument("--run", type=int, metavar="N", help="at its run N instead")
    feed = actions.add_parser("feed", help="where a watch's Atom feed is, as a file and served")
    feed.add_argument("id", metavar="ID")
    feed.add_argument(
        "--new-key", action="store_true", help="revoke the served feed's address: a new key"
    )
    remove = actions.add_parser("remove", help="stop watching a question")
    remove.add_argument("id", metavar="ID")


# The settings `ponder research` and `ponder doctor` take, in the order their help lists
# them ("--effort" is no setting: a preset of three); a flag declared later joins the end.
RUN_OPTIONS = (
    "model", "search", "wikipedia_lang", "docs", "max_loops", "mode", "--effort",
    "ollama_base_url", "provider", "openai_base_url", "server", "embed_model", "searxng_url",
    "fallback", "fetch_full_page", "allow_clarification", "cache",
)  # fmt: skip


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("research options")
    later = [name for name in (*RUN_FLAGS, *MACHINE_FLAGS) if name not in RUN_OPTIONS]
    for name in (*RUN_OPTIONS, *later):
        if name != "--effort":
            add_setting(group, name)
            continue
        group.add_argument(
            "--effort",
            choices=tuple(EFFORT_PRESETS),
            help="preset for rounds, queries per round and researchers; explicit flags win",
        )


def add_setting(parser: Any, name: str, help: str | None = None) -> None:
    """The flag of setting ``name`` (a Configuration or machine field), its value stored
    under the field's name; ``help`` says what it means for one command, where that differs."""
    flag: Flag = RUN_FLAGS.get(name) or MACHINE_FLAGS[name]
    said = help or flag.help
    if flag.parse == "search":  # the names the backends registered, when the parser is built
        said = said.format(choices=", ".join(search_backends.names()))
    options: dict[str, Any] = {"dest": name, "help": said}
    if flag.action in ("true", "false"):
        options.update(action="store_const", const=flag.action == "true")
    else:
        options.update(metavar=flag.metavar, choices=flag.choices or None)
        options.update(type={"int": int, "search": _search_names}.get(flag.parse))
        if flag.action == "append":
            options["action"] = "append"
    parser.add_argument(flag.name, **options)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--out", metavar="FILE", help="report file (default: from the question)")
    group.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        metavar="FORMAT",
        help="md, html (a self-contained page), pdf, docx or odt (with the evidence of each "
        "citation), or the cited sources as bib (BibTeX), ris or csl.json; without it, "
        "--out's suffix says, else md",
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
