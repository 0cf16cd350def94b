"""The token a door's user acts with on the engine, when the door is the engine's client
(:func:`engine_token`); the lists of users and tokens are read by
:mod:`ponder.settings.users`."""

from __future__ import annotations

from ponder.core.errors import ConfigurationError
from ponder.settings.environment import Environment
from ponder.settings.users import server_tokens


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
