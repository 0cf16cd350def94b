"""An MCP server whose tools ponder may search with, as the operator configures it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class McpServerSpec(BaseModel):
    """An MCP server whose tools ponder may search with: a command (stdio) or a URL."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="A short name; its sources are addressed mcp://NAME/TOOL.")
    command: list[str] | None = Field(None, description="Program and arguments (stdio).")
    url: str | None = Field(None, description="A streamable HTTP endpoint, e.g. .../mcp.")
    tools: list[str] = Field(description="The tools ponder may call (each takes a query).")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment (stdio).")
    timeout: float = Field(30.0, gt=0, description="Seconds before a call counts as failed.")

    @model_validator(mode="after")
    def _one_way_in(self) -> McpServerSpec:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r} needs a command or a url, one of them")
        if not self.tools:
            raise ValueError(f"MCP server {self.name!r} allows no tools: list them in 'tools'")
        return self
