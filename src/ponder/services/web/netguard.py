"""Decide whether a URL is safe for the page reader to fetch.

A search result or a redirect can point anywhere, including the user's router, a local
service or a cloud metadata endpoint. Unless private URLs are allowed, the reader refuses
any host that is, or resolves to, an address that is not on the public internet.

The check runs before every request and after every redirect, and again when the
connection is made (:mod:`ponder.services.web.pinned`), so a name that answers differently the
second time (DNS rebinding) gains nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
# inet_aton accepts 1-4 parts, each decimal, octal (leading 0) or hex (0x): 2130706433,
# 0x7f000001, 0177.0.0.1, 127.1 all mean 127.0.0.1. Browsers and curl accept them too.
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$", re.I)


class UnsafeURLError(ValueError):
    """A URL the reader must not fetch; the message says why."""


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host string denotes by itself, in any form a resolver accepts.

    Raises UnsafeURLError for numeric hosts that no resolver would read the same way.
    """
    text = host.strip("[]").rstrip(".").lower()
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        pass
    if _NUMERIC_HOST.match(text):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            raise UnsafeURLError(f"malformed numeric host '{host}'") from None
    return None


def forbidden_reason(ip: IPAddress) -> str | None:
    """Why an address is not public, or None when it is."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None:
            inner = forbidden_reason(embedded)
            if inner:
                return f"{inner} (embedded in {ip})"
    checks = [
        (ip in _METADATA, "cloud metadata address"),
        (ip.is_unspecified, "unspecified address"),
        (ip.is_loopback, "loopback address"),
        (ip.is_link_local, "link-local address"),
        (ip.is_multicast, "multicast address"),
        (ip.is_private, "private address"),
        # fec0::/10, deprecated (RFC 3879) but still routed inside sites; Python 3.11
        # counts it as global, so it is named here rather than left to is_global.
        (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local, "site-local address"),
        (ip.is_reserved, "reserved address"),
        (not ip.is_global, "non-public address"),
    ]
    for hit, reason in checks:
        if hit:
            return f"{reason} {ip}"
    return None


async def check_url(url: str, *, allow_private: bool = False) -> None:
    """Raise UnsafeURLError unless ``url`` is http(s) and every address of its host is public.

    DNS resolution runs off the event loop (``loop.getaddrinfo``).
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(f"malformed URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise UnsafeURLError(f"scheme '{parts.scheme or '(none)'}' is not http or https")
    host = parts.hostname
    if not host:
        raise UnsafeURLError("URL has no host")
    if allow_private:
        return
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        raise UnsafeURLError(f"host '{host}' is loopback")
    literal = parse_ip_literal(name)
    if literal is not None:
        raise_if_forbidden(host, [literal])
        return
    raise_if_forbidden(host, await resolve(name, port))


async def resolve(host: str, port: int | None) -> list[IPAddress]:
    """Every address ``host`` resolves to; UnsafeURLError when it does not resolve."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise UnsafeURLError(f"cannot resolve host '{host}' ({exc})") from None
    addresses: list[IPAddress] = []
    for info in infos:
        try:
            addresses.append(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]))
        except ValueError:
            continue
    if not addresses:
        raise UnsafeURLError(f"host '{host}' has no IP address")
    return addresses


def raise_if_forbidden(host: str, addresses: list[IPAddress]) -> None:
    for ip in addresses:
        reason = forbidden_reason(ip)
        if reason:
            raise UnsafeURLError(
                f"host '{host}' resolves to {reason}; set allow_private_urls to read it"
            )
