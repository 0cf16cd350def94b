"""The one interface every search backend implements."""

from __future__ import annotations

import os
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ponder.core.errors import SearchBackendError
from ponder.core.untrusted import printable

__all__ = ["Origin", "SearchBackend", "SearchBackendError", "SearchResult"]

Origin = Literal["web", "local", "mcp"]


class SearchResult(BaseModel):
    """One hit: a web page or a passage of a local document.

    Its text is data from outside: escape sequences and control characters are removed as
    it is made, and as a page's text is read into it later (``content``).
    """

    model_config = ConfigDict(validate_assignment=True)

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
    link: str | None = Field(
        default=None,
        description="Where a paper of your reference library is published: its DOI "
        "(https://doi.org/…) or URL.",
    )

    @field_validator("title", "url", "snippet", "content", "location", "date", "link")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        return printable(value) if value else value

    @field_validator("authors")
    @classmethod
    def _printable_names(cls, value: list[str]) -> list[str]:
        return [printable(name) for name in value]

    @property
    def text(self) -> str:
        return self.content or self.snippet

    def well_addressed(self) -> bool:
        """A web result at an http(s) address, a document at an absolute path, a tool's
        answer at the ``mcp://`` address ponder gave it: anything else (``javascript:``,
        ``mailto:``, a bare path from the web) is no source ponder can key, show or read,
        and could pose as one of your files."""
        if self.origin == "local":
            return os.path.isabs(self.url)
        schemes = ("https://", "http://", *(("mcp://",) if self.origin == "mcp" else ()))
        return self.url.lower().startswith(schemes)


@runtime_checkable
class SearchBackend(Protocol):
    """Async search. Returns [] for no results; raises SearchBackendError on failure."""

    name: str

    async def search(self, query: str, max_results: int) -> list[SearchResult]: ...
