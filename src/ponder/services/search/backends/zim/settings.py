"""search=zim's own settings: the archives, and the kiwix-serve that shows them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator

from ponder.settings.backend_settings import BackendSettings
from ponder.settings.flag import Flag
from ponder.settings.paths import split_path_list, usable_paths
from ponder.settings.settable import Operator


class ZimSettings(BackendSettings):
    """Kiwix ZIM archives: offline Wikipedia, Wiktionary, Stack Exchange, DevDocs, Gutenberg."""

    zim: Annotated[
        Operator[list[str]],
        Flag(
            "--zim", "a Kiwix ZIM archive to search (repeatable)", metavar="FILE", action="append"
        ),
    ] = Field(
        default_factory=list,
        description="Kiwix ZIM archives (.zim files) to search: offline Wikipedia, "
        "Wiktionary, Stack Exchange, DevDocs, Project Gutenberg… Searched by auto (the "
        "default), zim and hybrid, through each archive's full-text index, else its titles. "
        "The operator's on a shared server, like the document folders.",
        json_schema_extra={
            "paths": True,  # PONDER_ZIM=a.zim:b.zim, split like PATH
            "why": (
                "reads the operator's Kiwix archives: a caller's path would open files the "
                "operator never offered"
            ),
        },
    )
    kiwix_url: Annotated[
        Operator[str | None],
        Flag("--kiwix-url", "the kiwix-serve that serves the --zim archives", metavar="URL"),
    ] = Field(
        None,
        description="Base URL of a kiwix-serve serving the same archives: each ZIM source "
        "then links to its article there (/content/<archive name>/<path>). Unset: a source "
        "names the archive file and the article's path.",
        json_schema_extra={"why": "the address every ZIM source links to"},
    )

    @field_validator("zim", mode="before")
    @classmethod
    def _zim_as_list(cls, value: Any) -> Any:
        return split_path_list(value)

    @field_validator("zim")
    @classmethod
    def _usable_zim(cls, value: list[str]) -> list[str]:
        return usable_paths(value)

    @field_validator("kiwix_url")
    @classmethod
    def _kiwix_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        text = value.strip().rstrip("/")
        return text if "://" in text else f"http://{text}"
