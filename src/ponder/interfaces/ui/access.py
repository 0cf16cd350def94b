"""Who may use `ponder ui`, and as whom.

On loopback with no token set, the person at the machine is its operator: they see every
run on it (also those from the CLI, the API and ``ponder mcp``) and may set any field. Two
checks keep other web pages out: the Host header must name this server (no DNS
rebinding), and a request that changes something must come from the UI's own pages (its
Origin). Off loopback a token is required: ``PONDER_UI_TOKEN`` is the operator's, and
``PONDER_UI_TOKENS`` (``alice=TOKEN,bob=TOKEN``) names other users, who are callers: they
see only their own runs and set only what a caller may (``ponder.settings.callers``). A token comes
as ``Authorization: Bearer TOKEN``, or once as ``?token=`` in the address the server
prints, after which an HttpOnly, SameSite=Strict cookie carries it.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode

from ponder.core.errors import ConfigurationError
from ponder.interfaces.langgraph_auth import one_user_per_token, server_tokens
from ponder.interfaces.mcp.http import LOOPBACK
from ponder.settings.keys import Secrets

COOKIE = "ponder_ui"
OPERATOR = "operator"


@dataclass(frozen=True)
class User:
    name: str
    operator: bool  # sees every run and sets any field; a caller is held to its own


def users(secrets: Secrets) -> dict[str, User]:
    """Token → user, from the keys the environment holds (empty: no token is needed on
    loopback). A caller named ``operator`` (the name the operator's runs are kept under)
    would see the operator's runs, and of two users with one token one is taken for the
    other: both are refused."""
    raw = secrets.get("PONDER_UI_TOKENS") or ""
    callers = server_tokens(raw)
    if OPERATOR in callers:
        raise ConfigurationError(
            f"PONDER_UI_TOKENS names a user {OPERATOR!r}, the name the operator's runs are "
            "kept under: give that user another name (the operator's own token is "
            "PONDER_UI_TOKEN)."
        )
    operator_token = secrets.get("PONDER_UI_TOKEN")
    everyone = {**callers, **({OPERATOR: operator_token} if operator_token else {})}
    one_user_per_token(everyone, "PONDER_UI_TOKENS, PONDER_UI_TOKEN")
    known = {token: User(name, False) for name, token in callers.items()}
    if operator_token:
        known[operator_token] = User(OPERATOR, True)
    return known


def check_listening(host: str, known: dict[str, User]) -> None:
    """Refuse to listen off loopback without a token (``known``: :func:`users`), before
    anything binds."""
    if host not in LOOPBACK and not known:
        raise ConfigurationError(
            f"`ponder ui --host {host}` would let anyone on the network run research here — "
            "set PONDER_UI_TOKEN (yours) and optionally PONDER_UI_TOKENS (user=token,...) for "
            "others, or listen on 127.0.0.1."
        )


class Access:
    """ASGI middleware: answers 400/403/401 before any route runs; sets ``scope["user"]``."""

    def __init__(self, app: Any, host: str, port: int, known: dict[str, User]) -> None:
        self.app = app
        self.loopback = host in LOOPBACK
        names = {"127.0.0.1", "localhost", "[::1]"} if self.loopback else set()
        self.hosts = {f"{name}:{port}" for name in names}
        self.users = known

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts and host not in self.hosts:
            await _plain(send, 400, "This server answers only at its own address.")
            return
        origin = headers.get("origin")
        if scope["method"] not in ("GET", "HEAD") and origin not in (None, f"http://{host}"):
            await _plain(send, 403, "Requests that change something come from ponder's pages.")
            return
        query = parse_qs(scope.get("query_string", b"").decode())
        given = _bearer(headers) or (query.get("token") or [None])[0] or _cookie(headers)
        user = self._user(given)
        if user is None:
            await _plain(send, 401, "Open the address `ponder ui` printed (it has the token).")
            return
        if "token" in query and scope["method"] == "GET":
            await _set_cookie(send, scope, query, given or "")
            return
        scope["user"] = user
        await self.app(scope, receive, send)

    def _user(self, token: str | None) -> User | None:
        if not self.users:
            return User(OPERATOR, True) if self.loopback else None
        for known, user in self.users.items():
            if token is not None and hmac.compare_digest(token.encode(), known.encode()):
                return user
        return None


def _bearer(headers: dict[str, str]) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _cookie(headers: dict[str, str]) -> str | None:
    jar = SimpleCookie(headers.get("cookie", ""))
    return jar[COOKIE].value if COOKIE in jar else None


async def _set_cookie(
    send: Any, scope: dict[str, Any], query: dict[str, list[str]], token: str
) -> None:
    """The token moves from the address into a cookie; the address loses it."""
    rest = urlencode({k: v for k, v in query.items() if k != "token"}, doseq=True)
    location = scope["path"] + (f"?{rest}" if rest else "")
    cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [(b"location", location.encode()), (b"set-cookie", cookie.encode())],
        }
    )
    await send({"type": "http.response.body", "body": b""})


async def _plain(send: Any, status: int, text: str) -> None:
    body = f"ponder: {text}\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": body})
