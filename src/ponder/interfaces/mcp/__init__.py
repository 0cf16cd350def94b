"""`ponder mcp`: ponder as an MCP server, over stdio or streamable HTTP."""
