"""The API for asking whether a run can work before starting it: what a model server
serves, whether the configured search can be used — what ``ponder doctor`` and the CLI's
checks before a run call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.config import Configuration

if TYPE_CHECKING:
    from ponder.services.servers import ModelServer


def model_server(config: Configuration, url: str) -> ModelServer:
    """The models the server at ``url`` serves (Ollama, or the OpenAI API with
    provider=openai); raises OllamaUnavailableError or its OpenAI-server kin."""
    from ponder.services.servers import model_server as ask

    return ask(config, url)


def search_ready(config: Configuration) -> None:
    """Raise SearchError when the configured search cannot work at all (no Tavily key)."""
    if config.search == "tavily":
        from ponder.services.search.tavily import tavily_key

        tavily_key()


async def searxng_answers(config: Configuration) -> None:
    """Ask the configured SearXNG for one result; SearchBackendError when it cannot."""
    from ponder.services.search import SearxngSearch

    await SearxngSearch(config.searxng_url).search("ponder", 1)
