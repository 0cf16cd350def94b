"""Keys and tokens: never settings, since settings are stored with every run, shown by
Studio and printed with ``--json``, and a key must be none of those.

``TAVILY_API_KEY`` and ``OPENAI_API_KEY`` are the names their services document; the tokens
are the ones an operator puts in a server's environment. They are read at an edge
(:func:`ponder.settings.environment.read_environment`) and handed to what needs one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Secret = Literal[
    "TAVILY_API_KEY",
    "OPENAI_API_KEY",
    "PONDER_SERVER_TOKEN",
    "PONDER_SERVER_TOKENS",
    "PONDER_MCP_TOKEN",
    "PONDER_MCP_TOKENS",
    "PONDER_UI_TOKEN",
    "PONDER_UI_TOKENS",
]

SECRETS: dict[Secret, str] = {
    "TAVILY_API_KEY": "Tavily's API key, for search=tavily.",
    "OPENAI_API_KEY": "The model server's key with provider=openai, sent only to "
    "openai_base_url. Local servers need none.",
    "PONDER_SERVER_TOKEN": "The bearer token `ponder --server URL` sends to a LangGraph Server.",
    "PONDER_SERVER_TOKENS": "A LangGraph Server's users and their tokens (user=token,... or "
    "JSON): each sees only their own threads.",
    "PONDER_MCP_TOKEN": "The one token `ponder mcp --http` requires, shared by its callers.",
    "PONDER_MCP_TOKENS": "`ponder mcp --http`'s users and their tokens (user=token,...): each "
    "resumes only their own runs.",
    "PONDER_UI_TOKEN": "The operator's token for `ponder ui` (required off loopback).",
    "PONDER_UI_TOKENS": "`ponder ui`'s other users and their tokens (user=token,...).",
}


@dataclass(frozen=True)
class Secrets:
    """The keys and tokens the environment holds (stripped; blank ones are unset). Their
    values never show in a repr, a log line or a traceback's locals."""

    values: Mapping[Secret, str] = field(default_factory=dict, repr=False)

    def get(self, name: Secret) -> str | None:
        return self.values.get(name)
