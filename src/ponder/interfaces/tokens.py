"""Users and their tokens, as every served door reads them: `ponder ui`
(``PONDER_UI_TOKENS``), `ponder mcp` (``PONDER_MCP_TOKENS``) and the engine's auth
(``PONDER_SERVER_TOKENS``); and the token a door's user acts with on the engine, when the
door is the engine's client (:func:`engine_token`). Plain parsing, so the UI and MCP need no
LangGraph SDK."""

from __future__ import annotations

import json
from typing import Any

from ponder.core.errors import ConfigurationError
from ponder.settings.environment import Environment


def server_tokens(raw: str) -> dict[str, str]:
    """User name → token, from a list of them as ``PONDER_SERVER_TOKENS`` (and the MCP
    server's and the UI's) hold them: ``user=token,...`` or JSON."""
    text = raw.strip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return {}
        pairs: list[tuple[Any, Any]] = list(parsed.items()) if isinstance(parsed, dict) else []
    else:
        pairs = [(n, t) for n, _, t in (p.partition("=") for p in text.split(","))]
    tokens = {str(name).strip(): str(token).strip() for name, token in pairs}
    return {name: token for name, token in tokens.items() if name and token}


def one_user_per_token(tokens: dict[str, str], setting: str) -> None:
    """Refuse two users with one token (user name → token): whoever holds it would be
    taken for one of them."""
    holders: dict[str, str] = {}
    for name, token in tokens.items():
        if token in holders:
            raise ConfigurationError(
                f"{setting}: {holders[token]!r} and {name!r} have the same token — give each "
                "user their own, or one of them is taken for the other."
            )
        holders[token] = name


def engine_token(environment: Environment, user: str | None) -> str:
    """The token a door's ``user`` acts with on the engine (``PONDER_SERVER``): theirs in
    ``PONDER_SERVER_TOKENS``, the list the engine reads too, so each user is the same one
    there, whichever door they came through; ``None`` (the door's operator, or its one
    local user), ``PONDER_SERVER_TOKEN``, as for the CLI."""
    if user is None:
        token = environment.secret("PONDER_SERVER_TOKEN")
        where = "PONDER_SERVER_TOKEN (yours, one of the engine's PONDER_SERVER_TOKENS)"
    else:
        token = server_tokens(environment.secret("PONDER_SERVER_TOKENS") or "").get(user)
        where = f"{user}=TOKEN in PONDER_SERVER_TOKENS, as the engine has it"
    if not token:
        raise ConfigurationError(
            f"Research here runs on an engine ({environment.machine.server}), and there is "
            f"no engine token for you — its operator sets {where}, and restarts this server."
        )
    return token
