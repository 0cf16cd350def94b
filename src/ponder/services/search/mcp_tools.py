"""Tools of MCP servers as search backends (the official `mcp` SDK's client).

Each server in ``mcp_servers`` names a command to start (stdio) or a URL (streamable
HTTP) and the tools ponder may call. An allowed tool that takes a query string becomes a
backend that ``hybrid`` search includes; its text results become sources with an
``mcp://server/tool`` address, so a small model needs no tool calling to use them. A
server that fails, hangs past its timeout or answers with an error is a backend failure
(a warning; the other sources go on), never a crash.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.settings.mcp_servers import McpServerSpec

QUERY_NAMES = ("query", "q", "search", "question", "text")  # preferred argument names


class McpToolSearch:
    """Search by calling one tool of one MCP server, a fresh session per query."""

    def __init__(self, spec: McpServerSpec, tool: str) -> None:
        self.spec = spec
        self.tool = tool
        self.name = f"mcp:{spec.name}/{tool}"

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        if not query.strip():
            return []
        try:
            async with asyncio.timeout(self.spec.timeout):
                result = await self._call(query)
        except TimeoutError:
            raise SearchBackendError(
                f"MCP server {self.spec.name!r} gave no answer within {self.spec.timeout:g}s"
            ) from None
        except SearchBackendError:
            raise
        except Exception as exc:  # the server failed to start, crashed or broke the protocol
            raise SearchBackendError(
                f"MCP server {self.spec.name!r} failed ({type(exc).__name__}: {_first(exc)})"
            ) from None
        texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
        if result.is_error:
            raise SearchBackendError(
                f"MCP tool {self.spec.name}/{self.tool} answered an error: {' '.join(texts)[:200]}"
            )
        return [self._result(query, n, text) for n, text in enumerate(texts, 1) if text.strip()][
            :max_results
        ]

    async def _call(self, query: str) -> Any:
        from mcp import Client

        async with Client(self._target(), read_timeout_seconds=self.spec.timeout) as client:
            argument = await self._query_argument(client)
            return await client.call_tool(self.tool, {argument: query})

    def _target(self) -> Any:
        if self.spec.url is not None:
            return self.spec.url
        from mcp import StdioServerParameters
        from mcp.client.stdio import get_default_environment

        program, *arguments = self.spec.command or [""]
        environment = {**get_default_environment(), **self.spec.env}
        return StdioServerParameters(command=program, args=arguments, env=environment)

    async def _query_argument(self, client: Any) -> str:
        """The tool's string parameter that takes the query."""
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        if self.tool not in tools:
            raise SearchBackendError(
                f"MCP server {self.spec.name!r} has no tool {self.tool!r} "
                f"(it has: {', '.join(sorted(tools)) or 'none'})"
            )
        schema = tools[self.tool].input_schema or {}
        strings = [
            name
            for name, prop in (schema.get("properties") or {}).items()
            if isinstance(prop, dict) and prop.get("type") == "string"
        ]
        required = set(schema.get("required") or [])
        for name in [*QUERY_NAMES, *strings]:
            if name in strings and (name in required or len(strings) == 1):
                return name
        if len(required) == 1 and next(iter(required)) in strings:
            return next(iter(required))
        raise SearchBackendError(
            f"MCP tool {self.spec.name}/{self.tool} takes no query string (parameters: "
            f"{', '.join(schema.get('properties') or {}) or 'none'})"
        )

    def _result(self, query: str, number: int, text: str) -> SearchResult:
        first_line = text.strip().splitlines()[0][:80]
        return SearchResult(
            title=f"{first_line} ({self.spec.name}/{self.tool})",
            url=f"mcp://{self.spec.name}/{self.tool}/{number}?query={quote(query)}",
            snippet=text.strip()[:400],
            content=text.strip(),
            origin="mcp",
            backend=self.name,
            location=None,
        )


def _first(exc: BaseException) -> str:
    """The first concrete error inside task-group wrapping."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


def backends(specs: list[McpServerSpec]) -> list[McpToolSearch]:
    return [McpToolSearch(spec, tool) for spec in specs for tool in spec.tools]
