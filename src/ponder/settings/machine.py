"""The machine's own settings: where files go, which database and server, this machine's
name, who may call its MCP server.

They belong to the process, never to a run: a run's settings are stored with it and
resumed from anywhere (another machine sharing the database resumes it with its own
folders and its own name), and a caller of a shared server sends settings, never these.
They are read from ``PONDER_<FIELD>`` at an edge (:func:`ponder.settings.environment.machine`)
and passed down.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ponder.settings.flag import Flag


class Machine(BaseModel):
    """The settings of the machine and process that run ponder, from ``PONDER_<FIELD>``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data_dir: str | None = Field(
        None, description="Checkpoints and run history. Unset: the user's data folder."
    )
    cache_dir: str | None = Field(
        None, description="Search and page cache, local indexes. Unset: the user's cache folder."
    )
    database_url: str | None = Field(
        None,
        repr=False,  # it may hold a password
        description="PostgreSQL for checkpoints and run history, shared by several machines. "
        "Unset: SQLite in the data folder.",
    )
    host_id: str | None = Field(
        None,
        description="This machine's name in the run history. Unset: the host name (set it in "
        "containers, which get a new one at every start).",
    )
    server: Annotated[
        str | None,
        Flag(
            "--server",
            "run on this LangGraph Server (also PONDER_SERVER); the report is saved here",
            metavar="URL",
        ),
    ] = Field(None, description="The LangGraph Server to run research on. Unset: this machine.")
    server_self_url: str | None = Field(
        None,
        description="Where a server that serves ponder's graph (LangGraph Server, Aegra) "
        "reaches its own API, e.g. http://127.0.0.1:8000: its auth counts each caller's "
        "runs there, with the caller's own token. Unset: it refuses new runs (503).",
    )
    mcp_allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host headers `ponder mcp --http` accepts off loopback (host:port, "
        "host:* for any port). Empty: the MCP SDK's loopback checks only.",
    )
    ui_origins: list[str] = Field(
        default_factory=list,
        description="Addresses `ponder ui` is reached at through a proxy (scheme://host[:port], "
        "e.g. https://research.example.org): requests that change something may come from "
        "pages there. Empty: only its own address, over http.",
    )
    # What one user of `ponder ui` may upload into their own collection (decimal MB).
    ui_upload_file_mb: int = Field(
        50,
        ge=1,
        le=64,  # the largest file the indexer reads is 64 MiB
        description="The largest file a user of `ponder ui` may upload, in MB (at most 64, "
        "the largest file the indexer reads).",
    )
    ui_upload_files: int = Field(
        200,
        ge=0,
        le=100_000,
        description="How many files a user of `ponder ui` may keep in their own collection. "
        "0 turns uploads off.",
    )
    ui_upload_total_mb: int = Field(
        500,
        ge=1,
        le=10_000_000,
        description="How much a user of `ponder ui` may keep in their own collection, in MB.",
    )
    ui_upload_zim_mb: int = Field(
        0,
        ge=0,
        le=10_000_000,
        description="The largest Kiwix ZIM archive a user of `ponder ui` may upload into "
        "their own collection, in MB, counted in their total. 0 (the default) takes none: "
        "archives run to gigabytes and are read by libzim (ponder[zim]), so the operator "
        "chooses to offer them.",
    )
    model_dir: str | None = Field(
        None,
        description="Where the test rig keeps its model files. Unset: the models folder in "
        "the cache folder.",
    )

    @field_validator("data_dir", "cache_dir", "database_url", "host_id", "server", "model_dir")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return (value or "").strip() or None
