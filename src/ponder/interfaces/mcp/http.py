"""Who may call `ponder mcp --http`: loopback by default, a bearer token off it.

On loopback the SDK's transport security checks the Host and Origin headers, so a web page
cannot reach the server through DNS rebinding. Listening on another address needs tokens:
``PONDER_MCP_TOKENS`` (``alice=TOKEN,bob=TOKEN``, or JSON, as ``PONDER_SERVER_TOKENS`` for a
LangGraph Server) gives each user their own, and ``PONDER_MCP_TOKEN`` is one token shared
by all who hold it (one user, ``shared``). The SDK's bearer auth then answers 401 to a
request without a known token, and each run belongs to the user whose token started it
(:mod:`ponder.interfaces.mcp.owners`). A token set on loopback is required there too.
``PONDER_MCP_ALLOWED_HOSTS`` (``host:port``, comma-separated; ``host:*`` for any port)
turns the Host/Origin checks on off loopback.
"""

from __future__ import annotations

import hmac
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl

from ponder.core.errors import ConfigurationError
from ponder.settings.keys import Secret, Secrets
from ponder.settings.machine import Machine
from ponder.settings.users import one_user_per_token, server_tokens

TOKEN_ENV: Secret = "PONDER_MCP_TOKEN"
TOKENS_ENV: Secret = "PONDER_MCP_TOKENS"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
SHARED = "shared"  # the user PONDER_MCP_TOKEN's holders are, together
LOCAL = ""  # no token: stdio, or loopback without tokens (whoever is on the machine)


class UserTokens:
    """The SDK's TokenVerifier for the users' tokens: the token names its user (the
    access token's client and subject), compared in constant time with every token."""

    def __init__(self, users: dict[str, str]) -> None:
        self._users = {token.encode(): user for token, user in users.items()}

    async def verify_token(self, token: str) -> AccessToken | None:
        given, found = token.encode(), None
        for known, user in self._users.items():
            if hmac.compare_digest(given, known):
                found = user
        if found is None:
            return None
        return AccessToken(token="", client_id=found, subject=found, scopes=[])


def mcp_users(secrets: Secrets) -> dict[str, str]:
    """Token → user name, from PONDER_MCP_TOKENS and PONDER_MCP_TOKEN (empty: none set).
    A user named ``shared`` (who would see the shared token's runs) or two users with one
    token are refused."""
    named = server_tokens(secrets.get(TOKENS_ENV) or "")
    if SHARED in named:
        raise ConfigurationError(
            f"{TOKENS_ENV} names a user {SHARED!r}, the name the runs of {TOKEN_ENV}'s holders "
            "are kept under: give that user another name."
        )
    if shared := secrets.get(TOKEN_ENV):
        named[SHARED] = shared
    one_user_per_token(named, f"{TOKENS_ENV}, {TOKEN_ENV}")
    return {token: name for name, token in named.items()}


def caller() -> str:
    """Who is calling: the user their token names, or LOCAL without authentication."""
    token = get_access_token()
    return token.client_id if token is not None else LOCAL


def check_listening(host: str, secrets: Secrets) -> None:
    """Refuse to listen off loopback without a token, before anything binds."""
    if host not in LOOPBACK and not mcp_users(secrets):
        raise ConfigurationError(
            f"`ponder mcp --host {host}` would let anyone on the network run research here — "
            f"set {TOKENS_ENV} (user=token,... : each user's own runs) or {TOKEN_ENV} (one "
            "shared token) for callers to send as 'Authorization: Bearer TOKEN', or listen on "
            "127.0.0.1."
        )


def server_auth(host: str, port: int, secrets: Secrets) -> dict[str, Any]:
    """MCPServer arguments for bearer auth, when a token is set."""
    users = mcp_users(secrets)
    if not users:
        return {}
    where = f"[{host}]" if ":" in host else host
    # A resource server without an OAuth authorization server: no metadata routes, so the
    # issuer is only a required field; the server's own address stands in for it.
    issuer = AnyHttpUrl(f"http://{where}:{port}")
    settings = AuthSettings(issuer_url=issuer, resource_server_url=None)
    return {"token_verifier": UserTokens(users), "auth": settings}


def transport_security(machine: Machine) -> TransportSecuritySettings | None:
    """Host/Origin checks: the SDK's own on loopback (None), or the operator's list."""
    allowed = machine.mcp_allowed_hosts
    if not allowed:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed,
        allowed_origins=[f"{scheme}://{h}" for h in allowed for scheme in ("http", "https")],
    )
