"""An MCP server for the tests: one search tool over a tiny tide almanac (stdio or HTTP)."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

ALMANAC = {
    "spring": "Spring tides come at new and full Moon, when Sun and Moon pull in line.",
    "neap": "Neap tides come at the quarter Moons, when Sun and Moon pull at right angles.",
    "bore": "A tidal bore is a wave that runs up a river against its current at flood tide.",
}

server = MCPServer("tidebook")


@server.tool()
def lookup(query: str) -> list[str]:
    """Entries of the tide almanac that match the query."""
    words = set(query.lower().split())
    found = [text for key, text in ALMANAC.items() if key in words or key in query.lower()]
    return found or list(ALMANAC.values())


@server.tool()
def nothing(query: str) -> list[str]:
    """A search tool that never finds anything (the contract's empty case)."""
    return []


@server.tool()
def stats(count: int) -> str:
    """A tool that takes no query string (ponder must not call it)."""
    return str(count)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
    else:
        server.run()
