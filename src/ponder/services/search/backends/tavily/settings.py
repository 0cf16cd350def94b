"""search=tavily's own settings: the address of its API (the key is a secret, TAVILY_API_KEY)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ponder.settings.backend_settings import BackendSettings
from ponder.settings.settable import Operator


class TavilySettings(BackendSettings):
    """Tavily: a search API for agents, with a key."""

    ENDPOINTS: ClassVar[tuple[str, ...]] = ("tavily_url",)

    tavily_url: Operator[str] = Field(
        "https://api.tavily.com",
        description="Tavily's API address (for search=tavily): change it for a gateway or proxy.",
        json_schema_extra={"why": "an endpoint: queries and `TAVILY_API_KEY` go there"},
    )
