"""search=auto, the default: the web (DuckDuckGo, then your SearXNG when its address is set)
when one quick check says it can be reached, and every offline source you set up (your
documents, and any other backend that needs no network), searched at once and merged by
rank. Offline, only the offline sources."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.services.search.registry import Building, SearchPlugin, merged_contract, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from ponder.services.search.base import SearchBackend

WEB = "duckduckgo"


def make(built: Building) -> SearchBackend:
    """The offline sources first (they need no network), then the web when it can be
    reached; OfflineError when neither is there (a run resumed offline, a network gone
    mid-run)."""
    from ponder.core.errors import OfflineError
    from ponder.services.search.fallback import FallbackSearch
    from ponder.services.search.merge import HybridSearch

    sides = built.offline()
    web = built.chain(WEB)
    if web:
        sides.append(web[0] if len(web) == 1 else FallbackSearch(web, built.warn))
    if not sides:
        raise OfflineError(f"{WEB} cannot be reached")
    return sides[0] if len(sides) == 1 else HybridSearch(*sides, warn=built.warn)


register(
    SearchPlugin(
        SearchBackendInfo(
            name="auto",
            note="the default",
            summary="the web (DuckDuckGo) when it can be reached, and every offline source set "
            "up (your documents…), at once; offline, those alone",
            settings=("docs",),
            order=5,
            members=(WEB,),
            with_offline=True,
        ),
        make=make,
        contract=merged_contract("local", WEB),
    )
)
