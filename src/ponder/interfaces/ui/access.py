"""Who may use `ponder ui`, and as whom.

On loopback with no token set, the person at the machine is its operator: they see every
run on it (also those from the CLI, the API and ``ponder mcp``) and may set any field. Two
checks keep other web pages out: the Host header must name this server (no DNS
rebinding), and a request that changes something must come from the UI's own pages (its
Origin). Off loopback a token is required: ``PONDER_UI_TOKEN`` is the operator's, and
``PONDER_UI_TOKENS`` (``alice=TOKEN,bob=TOKEN``) names other users, who are callers: they
see only their own runs and set only what a caller may (``ponder.settings.callers``). A token comes
as ``Authorization: Bearer TOKEN``, or once as ``?token=`` in the address the server
prints, after which an HttpOnly, SameSite=Strict cookie carries it. That address is taken
only from a navigation the person made (``Sec-Fetch-Site: none``: typed, pasted, opened from
the terminal): a link on another site, or in a report on this one, cannot sign anyone in
as someone else. Behind a proxy that serves it over https, ``PONDER_UI_ORIGINS`` names the
address people use, so its pages may change things. A request's body is at most
``MAX_BODY`` bytes: no form can fill the server's memory. An upload (``STREAMED``) is the
one body not read here: its route streams it to disk under the user's own limits
(:mod:`.receiving`), after the same token and Origin checks.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode

from ponder.core.errors import ConfigurationError
from ponder.interfaces.mcp.http import LOOPBACK
from ponder.settings.keys import Secrets
from ponder.settings.users import OPERATOR, one_user_per_token, server_tokens

COOKIE = "ponder_ui"
MAX_BODY = 256 * 1024  # a question, its options and a follow-up; far below any harm
# Where a request came from, as the browser says: the person's own navigation. A link's
# token — on another site, or in a report here that a caller or a page had written — is not
# taken.
OWN_NAVIGATION = ("none",)
# The routes whose bodies are streamed by the route itself, under limits of their own.
STREAMED = frozenset({"/documents/uploads"})
# A watch's feed: read by feed readers, which send no token; the feed's own key is in its
# address (watch_routes), and it is no one's login.
FEEDS = "/feeds/"


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

    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        known: dict[str, User],
        origins: list[str] | None = None,
        *,
        callers_only: bool = False,
    ) -> None:
        self.app = app
        self.loopback = host in LOOPBACK
        names = {"127.0.0.1", "localhost", "[::1]"} if self.loopback else set()
        self.hosts = {f"{name}:{port}" for name in names}
        self.users = known
        self.origins = {origin.rstrip("/") for origin in origins or []}
        self.callers_only = callers_only  # an engine's callers: no one is its operator here

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts and host not in self.hosts:
            await _plain(send, 400, "This server answers only at its own address.")
            return
        if scope["method"] in ("GET", "HEAD") and scope["path"].startswith(FEEDS):
            await self.app(scope, receive, send)  # a feed's key, in its address, is its pass
            return
        origin = headers.get("origin")
        own = {f"http://{host}", *self.origins}
        if scope["method"] not in ("GET", "HEAD") and origin not in (None, *own):
            await _plain(send, 403, "Requests that change something come from ponder's pages.")
            return
        streamed = scope["method"] == "POST" and scope["path"] in STREAMED
        if int(headers.get("content-length") or 0) > MAX_BODY and not streamed:
            await _plain(send, 413, f"A request may carry at most {MAX_BODY // 1024} KB.")
            return
        query = parse_qs(scope.get("query_string", b"").decode())
        linked = (query.get("token") or [None])[0]
        if headers.get("sec-fetch-site") not in OWN_NAVIGATION:
            linked = None  # another site's link: its token signs no one in
        given = _bearer(headers) or linked or _cookie(headers)
        user = self._user(given)
        if user is None:
            await _plain(send, 401, "Open the address `ponder ui` printed (it has the token).")
            return
        if linked is not None and scope["method"] == "GET":
            await _set_cookie(send, scope, query, linked)
            return
        scope["user"] = user
        if scope["method"] not in ("GET", "HEAD") and not streamed:
            body = await _bounded_body(receive)  # read here, whatever length it claimed
            if body is _GONE:
                return  # the client went away mid-body: half a form starts nothing
            if body is None:
                await _plain(send, 413, f"A request may carry at most {MAX_BODY // 1024} KB.")
                return
            receive = _replayed(body, receive)
        await self.app(scope, receive, send)

    def _user(self, token: str | None) -> User | None:
        found = None
        if not self.users:
            found = User(OPERATOR, True) if self.loopback else None
        for known, user in self.users.items():
            if token is not None and hmac.compare_digest(token.encode(), known.encode()):
                found = user
        if found is not None and self.callers_only:
            return User(found.name, False)
        return found


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


_GONE = b"\x00gone"  # a body whose client disconnected before it was whole


async def _bounded_body(receive: Any) -> bytes | None:
    """The request's body; None once it grows past MAX_BODY (it is not read further);
    ``_GONE`` when the client went away before it was whole."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            return _GONE
        chunks.append(message.get("body") or b"")
        size += len(chunks[-1])
        if size > MAX_BODY:
            return None
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replayed(body: bytes, receive: Any) -> Any:
    """A ``receive`` that gives the body read already, then what the client sends next (its
    going away)."""
    given = [False]

    async def replay() -> Any:
        if not given[0]:
            given[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


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
