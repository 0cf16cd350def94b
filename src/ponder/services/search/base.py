"""The one interface every search backend implements."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ponder.core.errors import SearchBackendError

__all__ = ["Origin", "SearchBackend", "SearchBackendError", "SearchResult"]

Origin = Literal["web", "local", "mcp"]


class SearchResult(BaseModel):
    """One hit: a web page or a passage of a local document."""

    title: str
    url: str = Field(description="A web URL or an absolute local file path.")
    snippet: str = Field(description="The text the backend returned for this hit.")
    content: str | None = Field(
        None, description="Longer text when available: a full page or a local passage."
    )
    origin: Origin = "web"
    backend: str = ""
    location: str | None = Field(
        None, description="Where the passage sits in a local file, e.g. 'chars 1200-2400'."
    )
    authors: list[str] = Field(
        default_factory=list, description="Who wrote it, as the file's own metadata says."
    )
    date: str | None = Field(default=None, description="When, as ISO 8601 (2021-03-04).")

    @property
    def text(self) -> str:
        return self.content or self.snippet


@runtime_checkable
class SearchBackend(Protocol):
    """Async search. Returns [] for no results; raises SearchBackendError on failure."""

    name: str

    async def search(self, query: str, max_results: int) -> list[SearchResult]: ...
