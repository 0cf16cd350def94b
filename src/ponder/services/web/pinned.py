"""The page reader's HTTP transport: connections go only to addresses just checked.

Checking a URL and then letting the HTTP client resolve the name again leaves a window for
DNS rebinding (a name that answers a public address first and 127.0.0.1 next). Here the
connection pool's network backend resolves once, checks every address and connects to a
checked one; TLS still verifies the certificate against the original host name.

Built from public API only — httpcore's ``network_backend`` and httpx's transport
interface — so an httpx release cannot silently drop the pin.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpcore
import httpx

from ponder.services.web import netguard

# httpcore's errors as httpx's, most specific first (what callers of httpx catch).
_ERRORS: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.ProxyError, httpx.ProxyError),
)


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    try:
        yield
    except Exception as exc:  # httpcore's boundary: its errors become httpx's
        for theirs, ours in _ERRORS:
            if isinstance(exc, theirs):
                raise ours(str(exc)) from exc
        raise


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects only to addresses it has just resolved and checked."""

    def __init__(self, *, allow_private: bool) -> None:
        self.allow_private = allow_private
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        literal = netguard.parse_ip_literal(host)
        addresses = [literal] if literal is not None else await netguard.resolve(host, port)
        if not self.allow_private:
            netguard.raise_if_forbidden(host, addresses)
        return await self._inner.connect_tcp(
            str(addresses[0]), port, timeout=timeout, local_address=local_address,
            socket_options=socket_options,
        )  # fmt: skip

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise netguard.UnsafeURLError("unix sockets are not fetched")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _Body(httpx.AsyncByteStream):
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        if hasattr(self._stream, "aclose"):
            await self._stream.aclose()


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport over an httpcore pool whose connections go through
    :class:`PinnedBackend`. No proxy, no environment: a proxy would bypass the checks."""

    def __init__(self, *, allow_private: bool, ssl_context: ssl.SSLContext) -> None:
        self.backend = PinnedBackend(allow_private=allow_private)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context, network_backend=self.backend
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = httpcore.URL(
            scheme=request.url.raw_scheme,
            host=request.url.raw_host,
            port=request.url.port,
            target=request.url.raw_path,
        )
        asked = httpcore.Request(
            method=request.method,
            url=url,
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors():
            answer = await self._pool.handle_async_request(asked)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


def pinned_transport(*, allow_private: bool, verify: ssl.SSLContext | bool) -> PinnedTransport:
    """A transport for the page reader; ``verify`` as httpx takes it."""
    context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify)
    return PinnedTransport(allow_private=allow_private, ssl_context=context)
