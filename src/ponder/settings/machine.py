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
        None,
        description="Search and page cache, local indexes (unless index_dir). Unset: the "
        "user's cache folder.",
    )
    index_dir: str | None = Field(
        None,
        description="The folder whose indexes/ holds the document indexes, e.g. a volume "
        "shared by replicas: one indexer writes them (with a rollback journal, not a "
        "write-ahead log, so a network filesystem can carry them), the replicas read them "
        "with index_readonly. Unset: the cache folder, indexes of this machine's own.",
    )
    index_readonly: bool = Field(
        False,
        description="Only read the document indexes (in index_dir), written by the one "
        "indexer: never refresh nor embed them, nor write there. `ponder index` refuses.",
    )
    database_url: str | None = Field(
        None,
        repr=False,  # it may hold a password
        description="PostgreSQL for checkpoints and run history, shared by several machines. "
        "Unset: SQLite in the data folder.",
    )
    host_id: str | None = Field(
        None,
        description="This machine's name in the run history, as `ponder runs` and a refused "
        "resume show it. Unset: the host name. Only a name: which process holds a run is "
        "decided by its claim, not by this.",
    )
    # A running run renews its claim every quarter of this, so a process whose event loop
    # is held for a while (a large index read, a slow database) keeps its run; a machine
    # that died frees its runs for another this long after its last renewal.
    run_lease_seconds: int = Field(
        60,
        ge=2,
        le=3600,
        description="How long a run's claim in the run history lasts unless its process "
        "renews it (every quarter of this). A run whose machine died may be resumed "
        "elsewhere this long after it was last renewed.",
    )
    server: Annotated[
        str | None,
        Flag(
            "--server",
            "run on this LangGraph Server (also PONDER_SERVER); the report is saved here",
            metavar="URL",
        ),
    ] = Field(
        None,
        description="The engine (Aegra, LangGraph Server) to run research on: the CLI's and "
        "the API's runs, and every run of `ponder ui` and `ponder mcp`, which are then its "
        "clients and keep no run of their own. Unset: this machine.",
    )
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

    @field_validator(
        "data_dir", "cache_dir", "index_dir", "database_url", "host_id", "server", "model_dir"
    )
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return (value or "").strip() or None
