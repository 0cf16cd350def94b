"""search=arxiv: papers through arXiv's query API, no key, one request every three seconds
(:mod:`.client`); with fetch_full_page, each paper's PDF too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.services.search.registry import Building, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from ponder.services.search.backends.arxiv.settings import ArxivSettings
    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration


def _own(config: Configuration) -> ArxivSettings:
    """This backend's settings (its folder's settings.py), as the configuration holds them."""
    from ponder.services.search.backends.arxiv.settings import ArxivSettings

    return ArxivSettings.of(config)


def make(built: Building) -> SearchBackend:
    from ponder.services.search.backends.arxiv.client import ArxivSearch
    from ponder.services.search.backends.arxiv.full_text import ArxivFullText

    config = built.config
    arxiv = built.cached(ArxivSearch(_own(config).arxiv_url))
    if not config.fetch_full_page:
        return arxiv
    return ArxivFullText.with_reader(arxiv, config.allow_private_urls, built.cache, built.warn)


def check(config: Configuration) -> Verdict:
    from ponder.services.search.public_api import reachable

    return reachable("arXiv", _own(config).arxiv_url)


def endpoints(config: Configuration, topic: str) -> list[str]:
    return [_own(config).arxiv_url]


# Its contract fixture answers as tests/support/public_apis.py's arXiv does, so it is
# tests/unit/test_search_contract.py's own.
register(
    SearchPlugin(
        SearchBackendInfo(
            name="arxiv",
            fields=f"{__name__}.settings:ArxivSettings",
            summary="arXiv's papers: abstracts, and the PDFs' text with `fetch_full_page`",
            settings=("arxiv_url", "fetch_full_page", "allow_private_urls"),
            order=70,
            hybrid=True,
        ),
        make=make,
        check=check,
        endpoints=endpoints,
    )
)
