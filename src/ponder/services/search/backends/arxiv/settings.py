"""search=arxiv's own settings: the query API it asks."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ponder.settings.backend_settings import BackendSettings
from ponder.settings.settable import Operator

ARXIV_URL = "https://export.arxiv.org/api/query"


class ArxivSettings(BackendSettings):
    """arXiv: papers' abstracts, and their PDFs with fetch_full_page."""

    ENDPOINTS: ClassVar[tuple[str, ...]] = ("arxiv_url",)

    arxiv_url: Operator[str] = Field(
        ARXIV_URL,
        description="arXiv's query API (for search=arxiv), or a mirror of it.",
        json_schema_extra={
            "why": (
                "an endpoint: queries go there (and, with full pages, PDF downloads from the "
                "hosts it names)"
            )
        },
    )
