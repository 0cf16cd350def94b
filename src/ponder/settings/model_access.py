"""Settings: which model answers, where it is served, and how each call to it is made."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator, model_validator

from ponder.settings.choices import Provider
from ponder.settings.flag import Flag
from ponder.settings.ollama_host import DEFAULT_OLLAMA_URL, normalise_hosts
from ponder.settings.settable import Caller, Operator


class ModelAccess(BaseModel):
    """Which model answers, where it is served, and how each call to it is made."""

    model: Annotated[Caller[str], Flag("--model", "Ollama model, e.g. gemma3:4b")] = Field(
        "gemma3:4b", description="Ollama model used for every step."
    )
    report_model: Caller[str | None] = Field(
        None, description="Optional larger model used only to write the final report."
    )
    provider: Annotated[
        Operator[Provider],
        Flag("--provider", "ollama (default), or openai: LM Studio, llama-server, vLLM, LocalAI"),
    ] = Field(
        "ollama",
        description="How models are reached: Ollama's API, or the OpenAI chat API that LM "
        "Studio, llama.cpp's llama-server, vLLM and LocalAI speak (see openai_base_url).",
    )
    openai_base_url: Annotated[
        Operator[str],
        Flag(
            "--openai-url",
            "with --provider openai: the server's /v1 address (LM Studio :1234, "
            "llama-server :8080)",
            metavar="URL",
        ),
    ] = Field(
        "http://127.0.0.1:1234/v1",
        description="With provider=openai: the server's /v1 address (LM Studio "
        "http://127.0.0.1:1234/v1, llama-server http://127.0.0.1:8080/v1). Key, if any, in "
        "OPENAI_API_KEY.",
    )
    ollama_base_url: Annotated[
        Operator[str], Flag("--ollama-url", "where Ollama listens", metavar="URL")
    ] = Field(
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
        600.0,
        gt=0,
        description="Seconds one model call may take in all, its streamed answer included, "
        "before it is abandoned and retried (also the longest wait for one piece of it).",
    )
    max_retries: Operator[int] = Field(
        2, ge=0, le=5, description="Retries of one model call on invalid output or errors."
    )

    @model_validator(mode="after")
    def _answer_leaves_room_for_the_prompt(self) -> ModelAccess:
        if self.num_predict > self.num_ctx // 2:
            raise ValueError(
                f"num_predict ({self.num_predict}) must be at most half of num_ctx "
                f"({self.num_ctx}), or the sources will not fit the prompt"
            )
        return self

    @field_validator("ollama_base_url", mode="before")
    @classmethod
    def _ollama_url(cls, value: Any) -> Any:
        return normalise_hosts(value) if isinstance(value, str | list | tuple) else value

    @property
    def ollama_hosts(self) -> list[str]:
        """The Ollama hosts, in the order given."""
        return self.ollama_base_url.split(",")
