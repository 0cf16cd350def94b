"""search=searxng's own settings: where your SearXNG listens."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field, field_validator

from ponder.settings.backend_settings import BackendSettings
from ponder.settings.flag import Flag
from ponder.settings.settable import Operator


class SearxngSettings(BackendSettings):
    """SearXNG: your own metasearch engine."""

    ENDPOINTS: ClassVar[tuple[str, ...]] = ("searxng_url",)

    searxng_url: Annotated[
        Operator[str | None], Flag("--searxng-url", "your SearXNG instance", metavar="URL")
    ] = Field(
        None,
        description="Base URL of your self-hosted SearXNG instance, for search=searxng; when "
        "set, DuckDuckGo also falls back to it. Unset: SearXNG is never asked.",
        json_schema_extra={"why": "an endpoint: queries go there"},
    )

    @field_validator("searxng_url")
    @classmethod
    def _searxng_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        text = value.strip().rstrip("/")
        return text if "://" in text else f"http://{text}"
