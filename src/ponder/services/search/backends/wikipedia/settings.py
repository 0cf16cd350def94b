"""search=wikipedia's own settings: which edition, and which API."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from ponder.settings.backend_settings import BackendSettings
from ponder.settings.flag import Flag
from ponder.settings.settable import Caller, Operator

WIKIPEDIA_URL = "https://{lang}.wikipedia.org/w/api.php"


class WikipediaSettings(BackendSettings):
    """Wikipedia: an edition, through the MediaWiki Action API."""

    ENDPOINTS: ClassVar[tuple[str, ...]] = ("wikipedia_url",)

    wikipedia_lang: Annotated[
        Caller[str | None],
        Flag(
            "--wikipedia-lang",
            "Wikipedia edition (en, de, …); default: the question's language",
            metavar="LANG",
        ),
    ] = Field(
        None,
        pattern=r"^[a-z][a-z0-9-]{1,15}$",
        description="Wikipedia edition for search=wikipedia (en, de, fr, simple…). Unset: the "
        "question's language when it is clear, else English.",
        json_schema_extra={
            "why": (
                "which Wikipedia edition: a language code (`de`), never a host; the address "
                "stays `wikipedia_url`'s"
            )
        },
    )
    wikipedia_url: Operator[str] = Field(
        WIKIPEDIA_URL,
        description="MediaWiki Action API of the Wikipedia to search ({lang}: the edition); "
        "a mirror's /w/api.php stands in for it.",
        json_schema_extra={"why": "an endpoint: queries go there"},
    )
