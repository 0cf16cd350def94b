"""The names a user chooses among, in one place: Configuration types its fields with them,
the CLI offers them as choices and the MCP tool as an enum.

Only ``typing`` is imported, so ``ponder --help`` stays fast.
"""

from __future__ import annotations

from typing import Literal, get_args

SearchName = Literal["duckduckgo", "searxng", "local", "hybrid", "tavily", "wikipedia", "arxiv"]
Mode = Literal["auto", "loop", "deep"]
Provider = Literal["ollama", "openai"]

SEARCH_NAMES: tuple[str, ...] = get_args(SearchName)
MODES: tuple[str, ...] = get_args(Mode)
PROVIDERS: tuple[str, ...] = get_args(Provider)


def search_names(value: str | list[object] | tuple[object, ...]) -> list[str]:
    """The backends a ``search`` value names ("a,b" or a list), lower-case, each once."""
    parts = value.split(",") if isinstance(value, str) else value
    return list(dict.fromkeys(str(p).strip().lower() for p in parts if str(p).strip()))


def search_choice(value: str | list[object] | tuple[object, ...]) -> str:
    """A valid ``search`` value as ``"a,b"``; ValueError (for validation) names what is not."""
    names = search_names(value)
    unknown = [n for n in names if n not in SEARCH_NAMES]
    if unknown or not names:
        raise ValueError(
            f"unknown search backend {', '.join(unknown) or repr(value)} "
            f"(choose from {', '.join(SEARCH_NAMES)}, or several comma-separated)"
        )
    if "hybrid" in names and len(names) > 1:
        raise ValueError("hybrid already searches every backend; combine the others")
    return ",".join(names)
