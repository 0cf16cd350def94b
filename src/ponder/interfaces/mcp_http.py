"""Who may call `ponder mcp --http`: loopback by default, a bearer token off it.

On loopback the SDK's transport security checks the Host and Origin headers, so a web page
cannot reach the server through DNS rebinding. Listening on another address needs a token
(``PONDER_MCP_TOKEN``): the SDK's bearer auth then answers 401 to a request without it.
A token set on loopback is required there too. ``PONDER_MCP_ALLOWED_HOSTS`` (``host:port``,
comma-separated; ``host:*`` for any port) turns the Host/Origin checks on off loopback.
"""

from __future__ import annotations

import hmac
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl

from ponder.environment import Secret, machine, secret
from ponder.errors import ConfigurationError

TOKEN_ENV: Secret = "PONDER_MCP_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class StaticToken:
    """The SDK's TokenVerifier for one shared token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token="", client_id="ponder-mcp-caller", scopes=[])
        return None


def mcp_token() -> str | None:
    return secret(TOKEN_ENV)


def check_listening(host: str) -> None:
    """Refuse to listen off loopback without a token, before anything binds."""
    if host not in LOOPBACK and mcp_token() is None:
        raise ConfigurationError(
            f"`ponder mcp --host {host}` would let anyone on the network run research here — "
            f"set {TOKEN_ENV} to a secret token that callers send as 'Authorization: Bearer "
            "TOKEN', or listen on 127.0.0.1."
        )


def server_auth(host: str, port: int) -> dict[str, Any]:
    """MCPServer arguments for bearer auth, when a token is set."""
    token = mcp_token()
    if token is None:
        return {}
    where = f"[{host}]" if ":" in host else host
    # A resource server without an OAuth authorization server: no metadata routes, so the
    # issuer is only a required field; the server's own address stands in for it.
    issuer = AnyHttpUrl(f"http://{where}:{port}")
    settings = AuthSettings(issuer_url=issuer, resource_server_url=None)
    return {"token_verifier": StaticToken(token), "auth": settings}


def transport_security(host: str) -> TransportSecuritySettings | None:
    """Host/Origin checks: the SDK's own on loopback (None), or the operator's list."""
    allowed = machine().mcp_allowed_hosts
    if not allowed:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed,
        allowed_origins=[f"{scheme}://{h}" for h in allowed for scheme in ("http", "https")],
    )
