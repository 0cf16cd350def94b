"""One configuration model; precedence is per-run > environment > default.

Per-run values are keyword arguments (the Python API, the CLI's flags) or what LangGraph
carries for a run (:mod:`ponder.settings.run_settings` reads them). Environment variables are
``PONDER_<FIELD>`` plus Ollama's own ``OLLAMA_HOST``, read by :mod:`ponder.settings.environment`
(where the machine's own settings and the keys are too: never a run's). An environment
value never overrides an explicit per-run value, even one that equals the default.

Each field is ``Caller[...]`` or ``Operator[...]`` (:mod:`ponder.settings.settable`): on a graph
served to others the per-run values are a caller's, and only what the operator allows is
taken (:mod:`ponder.settings.callers`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ponder.core.errors import ConfigurationError
from ponder.settings import search_backends
from ponder.settings.choices import Mode, Provider
from ponder.settings.environment import PATH_LISTS, field_values, ollama_host
from ponder.settings.mcp_servers import McpServerSpec
from ponder.settings.ollama_host import DEFAULT_OLLAMA_URL, normalise_hosts
from ponder.settings.paths import path_problem
from ponder.settings.settable import Caller, Operator

WIKIPEDIA_URL = "https://{lang}.wikipedia.org/w/api.php"
ARXIV_URL = "https://export.arxiv.org/api/query"


def _ceiling(field: str, cap: int) -> Any:
    """An operator's ceiling on a caller's ``field``, whose hard cap is ``cap``."""
    return Field(
        cap, ge=1, le=cap, description=f"On a shared server: the highest {field} a caller may ask."
    )


class Configuration(BaseModel):
    """Every knob ponder has. Studio shows these fields with their descriptions."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: Caller[str] = Field("gemma3:4b", description="Ollama model used for every step.")
    report_model: Caller[str | None] = Field(
        None, description="Optional larger model used only to write the final report."
    )
    provider: Operator[Provider] = Field(
        "ollama",
        description="How models are reached: Ollama's API, or the OpenAI chat API that LM "
        "Studio, llama.cpp's llama-server, vLLM and LocalAI speak (see openai_base_url).",
    )
    openai_base_url: Operator[str] = Field(
        "http://127.0.0.1:1234/v1",
        description="With provider=openai: the server's /v1 address (LM Studio "
        "http://127.0.0.1:1234/v1, llama-server http://127.0.0.1:8080/v1). Key, if any, in "
        "OPENAI_API_KEY.",
    )
    ollama_base_url: Operator[str] = Field(
        DEFAULT_OLLAMA_URL,
        description="Where Ollama listens. Defaults to OLLAMA_HOST, then 127.0.0.1:11434. "
        "Several hosts: comma-separated (a list in Python; PONDER_OLLAMA_BASE_URL, since "
        "OLLAMA_HOST is one host); each call goes to the least busy.",
    )
    ollama_parallel: Operator[int] = Field(
        1,
        ge=1,
        le=64,
        description="With several Ollama hosts, calls in flight per host (Ollama's "
        "OLLAMA_NUM_PARALLEL there; 1 suits one GPU running one request at a time).",
    )
    num_ctx: Operator[int] = Field(
        8192, ge=1024, le=1_048_576, description="Context window sent to Ollama on every call."
    )
    num_predict: Caller[int] = Field(
        1024, ge=16, le=65_536, description="Maximum tokens the model may write per call."
    )
    temperature: Caller[float] = Field(0.2, ge=0.0, le=2.0, description="Sampling temperature.")
    keep_alive: Operator[str] = Field("10m", description="How long Ollama keeps the model loaded.")
    request_timeout: Operator[float] = Field(
        300.0, gt=0, description="Seconds before one model call is abandoned and retried."
    )
    max_retries: Operator[int] = Field(
        2, ge=0, le=5, description="Retries of one model call on invalid output or errors."
    )
    max_loops: Caller[int] = Field(
        3, ge=1, le=20, description="Maximum search rounds of the research loop."
    )
    queries_per_round: Caller[int] = Field(
        3, ge=1, le=8, description="Maximum search queries generated per round."
    )
    results_per_query: Caller[int] = Field(
        5, ge=1, le=20, description="Search results (distinct pages or files) kept per query."
    )
    min_findings_to_stop: Caller[int] = Field(
        3,
        ge=0,
        le=20,
        description="A 'sufficient' verdict ends the loop early only when the summary has at "
        "least this many cited findings about the topic…",
    )
    min_sources_to_stop: Caller[int] = Field(
        2,
        ge=0,
        le=20,
        description="…citing at least this many distinct sources. Otherwise the loop searches "
        "on while max_loops allows.",
    )
    search: Caller[str] = Field(
        "duckduckgo",
        description=f"Search backend: {search_backends.described()}; several at once "
        "comma-separated (a list in Python), e.g. wikipedia,arxiv.",
        json_schema_extra={"examples": ["duckduckgo", "wikipedia,arxiv"]},
    )
    docs: Caller[list[str]] = Field(
        default_factory=list,
        description="Folders or files of your own documents, for local and hybrid search.",
    )
    embed_model: Operator[str | None] = Field(
        None,
        description="Embedding model for semantic search over your documents, fused with "
        "keyword search: an Ollama model (e.g. nomic-embed-text), or e5-small to run "
        "multilingual-e5-small inside ponder (pip install 'ponder[semantic]'). Off when unset.",
    )
    searxng_url: Operator[str] = Field(
        "http://127.0.0.1:8888", description="Base URL of a self-hosted SearXNG instance."
    )
    tavily_url: Operator[str] = Field(
        "https://api.tavily.com",
        description="Tavily's API address (for search=tavily): change it for a gateway or proxy.",
    )
    wikipedia_lang: Caller[str | None] = Field(
        None,
        pattern=r"^[a-z][a-z0-9-]{1,15}$",
        description="Wikipedia edition for search=wikipedia (en, de, fr, simple…). Unset: the "
        "question's language when it is clear, else English.",
    )
    wikipedia_url: Operator[str] = Field(
        WIKIPEDIA_URL,
        description="MediaWiki Action API of the Wikipedia to search ({lang}: the edition); "
        "a mirror's /w/api.php stands in for it.",
    )
    arxiv_url: Operator[str] = Field(
        ARXIV_URL,
        description="arXiv's query API (for search=arxiv), or a mirror of it.",
    )
    mcp_servers: Operator[list[McpServerSpec]] = Field(
        default_factory=list,
        description="MCP servers whose tools hybrid search includes: each {name, command or "
        "url, tools}. PONDER_MCP_SERVERS takes the same as JSON.",
    )
    fallback: Operator[bool] = Field(
        False,
        description="With search=searxng, try DuckDuckGo (a public engine) when SearXNG fails. "
        "Off by default: queries go only where the search setting says.",
    )
    fetch_full_page: Caller[bool] = Field(
        False, description="Read each web result's full page instead of only its snippet."
    )
    allow_private_urls: Operator[bool] = Field(
        False, description="Let the page reader fetch loopback and private-network addresses."
    )
    cache: Caller[bool] = Field(True, description="Cache search results and pages on disk.")
    cache_ttl_hours: Operator[float] = Field(
        24.0, gt=0, description="How long cached entries live (the cache all runs share)."
    )
    mode: Caller[Mode] = Field(
        "auto",
        description="auto: loop, hand broad topics to the deep pipeline; loop: never hand "
        "off; deep: hand off at once.",
    )
    allow_clarification: Caller[bool] = Field(
        True, description="Let the deep pipeline ask one clarifying question."
    )
    max_concurrent_researchers: Caller[int] = Field(
        3, ge=1, le=10, description="Researchers that run at once in the deep pipeline."
    )
    max_supervisor_rounds: Caller[int] = Field(
        3, ge=1, le=10, description="Maximum supervisor rounds in the deep pipeline."
    )
    strict_citations: Caller[bool] = Field(
        False,
        description="Drop the report's sentences that no source ponder read supports, "
        "instead of marking them [unsupported].",
    )
    summary_tokens: Caller[int] = Field(
        700, ge=100, le=8000, description="Length budget of the running summary, in tokens."
    )
    evidence_tokens: Caller[int] = Field(
        1200,
        ge=200,
        le=32000,
        description="Source text shown to the model per round, in tokens: the most relevant "
        "passages of the round's sources are chosen to fill it.",
    )
    docs_roots: Operator[list[str]] = Field(
        default_factory=list,
        description="On a shared server: the folders a caller's docs must lie in (after ~, .. "
        "and symlinks are resolved). Unset: the operator's own docs (PONDER_DOCS).",
    )
    docs_hidden_and_symlinks: Operator[bool] = Field(
        False,
        description="Also index hidden files and folders (names starting with '.') and "
        "symlinks that lead out of a document folder. Off: they are skipped, and a caller "
        "may not name them.",
    )
    caller_searches: Operator[list[search_backends.SearchName] | None] = Field(
        None,
        description="On a shared server: the search backends a caller may choose. Unset: the "
        "operator's own search, plus local when there are document roots.",
    )
    caller_models: Operator[list[str]] = Field(
        default_factory=list,
        description="On a shared server: models a caller may choose for model and "
        "report_model ('*': any). Empty: the operator's models are pinned.",
    )
    # The most a caller may choose of each cost (ponder.settings.ceilings); unset: the
    # field's hard cap.
    caller_max_loops: Operator[int] = _ceiling("max_loops", 20)
    caller_queries_per_round: Operator[int] = _ceiling("queries_per_round", 8)
    caller_results_per_query: Operator[int] = _ceiling("results_per_query", 20)
    caller_max_concurrent_researchers: Operator[int] = _ceiling("max_concurrent_researchers", 10)
    caller_max_supervisor_rounds: Operator[int] = _ceiling("max_supervisor_rounds", 10)
    caller_runs: Operator[int] = Field(
        3,
        ge=1,
        le=1000,
        description="On a shared server: how many runs one caller may have running or queued "
        "at once; one more is refused until one ends.",
    )

    @model_validator(mode="after")
    def _answer_leaves_room_for_the_prompt(self) -> Configuration:
        if self.num_predict > self.num_ctx // 2:
            raise ValueError(
                f"num_predict ({self.num_predict}) must be at most half of num_ctx "
                f"({self.num_ctx}), or the sources will not fit the prompt"
            )
        return self

    @field_validator(*PATH_LISTS, mode="before")
    @classmethod
    def _docs_as_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part for part in value.split(os.pathsep) if part]
        return value

    @field_validator(*PATH_LISTS)
    @classmethod
    def _usable_paths(cls, value: list[str]) -> list[str]:
        """A path that cannot name a file (a NUL byte, ``~nosuchuser``) is refused here,
        with why, rather than failing later inside pathlib."""
        problems = [problem for raw in value if (problem := path_problem(raw))]
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @field_validator("ollama_base_url", mode="before")
    @classmethod
    def _ollama_url(cls, value: Any) -> Any:
        return normalise_hosts(value) if isinstance(value, str | list | tuple) else value

    @property
    def recursion_limit(self) -> int:
        """LangGraph supersteps enough for the configured caps: each round is three steps,
        each supervisor round two, plus the fixed steps around them."""
        return 3 * self.max_loops + 2 * self.max_supervisor_rounds + 14

    @property
    def ollama_hosts(self) -> list[str]:
        """The Ollama hosts, in the order given."""
        return self.ollama_base_url.split(",")

    @field_validator("searxng_url")
    @classmethod
    def _searxng_url(cls, value: str) -> str:
        text = value.strip().rstrip("/")
        return text if "://" in text else f"http://{text}"

    @field_validator("search", mode="before")
    @classmethod
    def _search_names(cls, value: Any) -> Any:
        """One name, or several (``"wikipedia,arxiv"`` or a list): kept as ``"a,b"``."""
        return search_backends.choice(value) if isinstance(value, str | list | tuple) else value

    @property
    def searches(self) -> list[str]:
        """The search backends chosen, in the order given."""
        return self.search.split(",")

    @classmethod
    def field_names(cls) -> list[str]:
        return sorted(cls.model_fields)

    @classmethod
    def create(cls, **values: Any) -> Configuration:
        """Validate explicit values (the Python API), filling the rest from env and defaults."""
        unknown = sorted(set(values) - set(cls.model_fields))
        if unknown:
            raise ConfigurationError(
                f"Unknown configuration key(s): {', '.join(unknown)}. "
                f"Valid keys: {', '.join(cls.field_names())}."
            )
        return _build({**environment_values(), **values})

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Configuration:
        """``values`` over the environment and the defaults, already known to be fields
        (a run's per-run values); invalid ones are a ConfigurationError."""
        return _build({**environment_values(), **values})


def _build(values: dict[str, Any]) -> Configuration:
    try:
        return Configuration(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigurationError(f"Invalid configuration — {problems}.") from None


def environment_values(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Configuration values set in the environment (``PONDER_<FIELD>``, ``OLLAMA_HOST``)."""
    values = field_values(Configuration.model_fields, environ)
    host = ollama_host(environ)
    if host and "ollama_base_url" not in values:
        values["ollama_base_url"] = host
    return values
