"""Users and their tokens as every served door lists them (``PONDER_UI_TOKENS``,
``PONDER_MCP_TOKENS``, ``PONDER_SERVER_TOKENS``): plain parsing, so the doors, the engine's
auth and a watch's run (whose owner must still be a user) read them alike."""

from __future__ import annotations

import json
from typing import Any

from ponder.core.errors import ConfigurationError
from ponder.settings.keys import Secret

OPERATOR = "operator"  # the name the operator's runs and watches are kept under
UI_TOKENS: Secret = "PONDER_UI_TOKENS"


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
