"""search=hybrid: your documents, every backend that says hybrid includes it, and the
allowed tools of ``mcp_servers``, searched concurrently and merged by rank
(:mod:`ponder.services.search.merge`); a side that fails leaves the others."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ponder.services.search.registry import (
    Building,
    SearchPlugin,
    merged_contract,
    plugins,
    register,
)
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from ponder.services.search.base import SearchBackend

NO_DOCS = "search='hybrid' without docs: searching without your documents (--docs PATH)."


def make(built: Building) -> SearchBackend:
    """The offline sources first (they need no network), then the others in their order."""
    from ponder.services.search.fallback import FallbackSearch
    from ponder.services.search.mcp_tools import backends as mcp_backends
    from ponder.services.search.merge import HybridSearch

    sides: list[SearchBackend] = []
    for other in plugins():
        if other.info.hybrid and not other.info.offline:
            chain = built.chain(other.name)  # empty: it cannot be reached
            if chain:
                sides.append(chain[0] if len(chain) == 1 else FallbackSearch(chain, built.warn))
    sides += mcp_backends(built.config.mcp_servers)
    if built.local is None:
        built.warn(NO_DOCS)
    sides[:0] = built.offline(hybrid_only=True)
    if not sides:
        from ponder.core.errors import OfflineError

        raise OfflineError("none of the backends hybrid searches could be reached")
    return HybridSearch(*sides, warn=built.warn)


register(
    SearchPlugin(
        SearchBackendInfo(
            name="hybrid",
            note="all of them",
            summary="your documents, each backend marked *in `hybrid`* and MCP tools, at once",
            settings=("docs", "mcp_servers"),
            order=40,
            everything=True,
        ),
        make=make,
        contract=merged_contract("local", "searxng"),
    )
)
