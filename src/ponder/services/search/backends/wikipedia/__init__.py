"""search=wikipedia: an edition of Wikipedia through the MediaWiki Action API, no key
(:mod:`.client`); the edition is the question's language unless
wikipedia_lang names one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.services.search.registry import Building, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from ponder.services.search.backends.wikipedia.settings import WikipediaSettings
    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration


def _own(config: Configuration) -> WikipediaSettings:
    """This backend's settings (its folder's settings.py), as the configuration holds them."""
    from ponder.services.search.backends.wikipedia.settings import WikipediaSettings

    return WikipediaSettings.of(config)


def make(built: Building) -> SearchBackend:
    from ponder.services.search.backends.wikipedia.client import WikipediaSearch
    from ponder.services.search.backends.wikipedia.language import edition_url, wikipedia_language

    config = built.config
    language = _own(config).wikipedia_lang or wikipedia_language(built.topic)
    return built.cached(WikipediaSearch(edition_url(_own(config).wikipedia_url, language)))


def check(config: Configuration) -> Verdict:
    """The edition a run would ask (English when wikipedia_lang is unset)."""
    from ponder.services.search.backends.wikipedia.language import edition_url
    from ponder.services.search.public_api import reachable

    return reachable(
        "Wikipedia", edition_url(_own(config).wikipedia_url, _own(config).wikipedia_lang or "en")
    )


def endpoints(config: Configuration, topic: str) -> list[str]:
    """The edition a run would ask."""
    from ponder.services.search.backends.wikipedia.language import edition_url, wikipedia_language

    language = _own(config).wikipedia_lang or wikipedia_language(topic)
    return [edition_url(_own(config).wikipedia_url, language)]


# Its contract fixture answers as tests/support/public_apis.py's MediaWiki does, so it is
# tests/unit/test_search_contract.py's own.
register(
    SearchPlugin(
        SearchBackendInfo(
            name="wikipedia",
            fields=f"{__name__}.settings:WikipediaSettings",
            summary="Wikipedia's articles, the question's language edition (MediaWiki Action API)",
            settings=("wikipedia_lang", "wikipedia_url"),
            order=60,
            hybrid=True,
        ),
        make=make,
        check=check,
        endpoints=endpoints,
    )
)
