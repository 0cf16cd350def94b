"""Errors a user can hit. Each message says what to do next.

The CLI maps each class to one line and an exit code; tests see the real exception. The
exit codes are one table, ``EXIT_CODES``: the classes below, the CLI's help and
docs/interfaces.md all take theirs from it (a test holds the docs to it).
"""

from __future__ import annotations

from enum import IntEnum

from ponder.core.redact import redact


class ExitCode(IntEnum):
    """What ``ponder`` exits with."""

    DONE = 0
    ERROR = 1
    USAGE = 2
    OLLAMA_UNAVAILABLE = 3
    MODEL_MISSING = 4
    MODEL_FAILING = 5
    SEARCH = 6
    STORAGE = 7
    SERVER = 8
    OFFLINE = 9
    NEEDS_ANSWER = 10
    INTERRUPTED = 130


# Each code in a few words, as `ponder --help` lists them.
EXIT_CODES: dict[ExitCode, str] = {
    ExitCode.DONE: "done",
    ExitCode.ERROR: "another ponder error",
    ExitCode.USAGE: "usage",
    ExitCode.OLLAMA_UNAVAILABLE: "Ollama unavailable",
    ExitCode.MODEL_MISSING: "model missing",
    ExitCode.MODEL_FAILING: "model failing",
    ExitCode.SEARCH: "search",
    ExitCode.STORAGE: "storage",
    ExitCode.SERVER: "server",
    ExitCode.OFFLINE: "offline, with nothing offline to search",
    ExitCode.NEEDS_ANSWER: "needs an answer",
    ExitCode.INTERRUPTED: "interrupted",
}


class PonderError(Exception):
    """Base class for every error ponder raises on purpose.

    Its message never shows a URL's credentials (user:password@, a token in the query).
    """

    exit_code: int = ExitCode.ERROR

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class ConfigurationError(PonderError, ValueError):
    """A configuration key or value is invalid."""

    exit_code = ExitCode.USAGE


class InvalidInputError(PonderError, ValueError):
    """The question or another input cannot be researched as given."""

    exit_code = ExitCode.USAGE


class OllamaUnavailableError(PonderError):
    """Ollama cannot be reached at the configured URL."""

    exit_code = ExitCode.OLLAMA_UNAVAILABLE

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        where = f"at any of {base_url.replace(',', ', ')}" if "," in base_url else f"at {base_url}"
        super().__init__(
            f"Ollama is not running {where} — start it with `ollama serve` "
            "or set OLLAMA_HOST (or --ollama-url) to where it runs."
        )


class ModelServerUnavailableError(OllamaUnavailableError):
    """The OpenAI-compatible model server (provider=openai) cannot be reached."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        PonderError.__init__(
            self,
            f"No model server answers at {base_url} — start it (LM Studio: Developer → Start "
            "Server; llama.cpp: `llama-server -m MODEL.gguf`) or set --openai-url to where it "
            "runs.",
        )


class ModelServerRefusedError(OllamaUnavailableError):
    """The OpenAI-compatible model server refused the key (HTTP 401/403)."""

    def __init__(self, base_url: str, status: int) -> None:
        self.base_url = base_url
        PonderError.__init__(
            self,
            f"The model server at {base_url} refused the request (HTTP {status}) — set "
            "OPENAI_API_KEY to the key it expects.",
        )


class ModelNotFoundError(PonderError):
    """The configured model is not pulled on the Ollama server."""

    exit_code = ExitCode.MODEL_MISSING

    def __init__(self, model: str, base_url: str, option: str = "--model") -> None:
        self.model = model
        self.base_url = base_url
        super().__init__(
            f"Model '{model}' is not available on the Ollama server at {base_url} — "
            f"run `ollama pull {model}` or choose another with {option}."
        )


class ModelCallError(PonderError):
    """The model kept failing (errors, timeouts) after bounded retries."""

    exit_code = ExitCode.MODEL_FAILING


class SearchError(PonderError):
    """A search backend is misconfigured or cannot be used at all."""

    exit_code = ExitCode.SEARCH


class OfflineError(SearchError):
    """The web cannot be reached, and no offline source (documents, a reference library,
    ZIM archives) is set up."""

    exit_code = ExitCode.OFFLINE

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__(
            f"The web cannot be reached ({why}), and nothing offline is set up to search "
            "instead — research your own documents with --docs PATH (or PONDER_DOCS), an "
            "offline encyclopedia with --zim FILE.zim, or run `ponder doctor` to see what can "
            "be reached."
        )


class RunNotFoundError(PonderError):
    """No checkpointed run has the given id."""

    exit_code = ExitCode.USAGE

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        super().__init__(f"No run with id '{thread_id}' — list runs with `ponder runs`.")


class RunBusyError(InvalidInputError):
    """Another process holds the run: it claimed it first. The message says where, since
    when, and what to do."""

    def __init__(self, thread_id: str, message: str) -> None:
        self.thread_id = thread_id
        super().__init__(message)


class RunTakenOverError(RunBusyError):
    """Another process claimed the run this one was running (forced, or this one could not
    renew its claim in time): this one stops."""


class StorageError(PonderError):
    """A data, cache or checkpoint file cannot be written."""

    exit_code = ExitCode.STORAGE


class CallerRefusedError(ConfigurationError):
    """A caller of a shared server set what only the server's operator may set."""


class TooManyRunsError(CallerRefusedError):
    """A caller of a shared server already has as many runs running or queued as its
    operator allows (``caller_runs``); one more is refused until one ends."""


class SearchBackendError(PonderError):
    """One search backend failed this time (network, server error): the search falls back
    or goes on without it. 'No results' is an empty list, not this; a backend that cannot
    work at all as configured is a SearchError."""


class RemoteServerError(PonderError):
    """The LangGraph server cannot be reached, or refused or failed the run."""

    exit_code = ExitCode.SERVER


class ClarificationNeeded(PonderError):
    """The run paused with a question; answer it with ``resume(thread_id, answer)``."""

    exit_code = ExitCode.NEEDS_ANSWER

    def __init__(self, question: str, thread_id: str, server: str | None = None) -> None:
        self.question = question
        self.thread_id = thread_id
        self.server = server
        where = f" --server {server}" if server else ""
        super().__init__(
            f"ponder needs an answer to continue: {question} — resume with "
            f'`ponder resume {thread_id}{where} --answer "..."`.'
        )


class Interrupted(Exception):
    """A command was stopped by the user (Ctrl-C, SIGTERM); what resumes it is printed."""
