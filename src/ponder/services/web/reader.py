"""The page reader: fetch a URL safely and reduce it to its main text.

Only what the address guard allows is fetched (:mod:`.netguard`, pinned to the addresses it
checked), within a size limit that holds after decompression (:mod:`.body`), one deadline
for the whole page (connecting, redirects, reading and parsing), and a redirect limit;
:mod:`ponder.services.text.extraction` turns HTML and PDF into text, in a worker process
the deadline can stop (:mod:`ponder.services.text.sandbox`). The reader never raises for
a bad page: it returns a ``Page`` whose ``reason`` says why it was not read. Page text is
untrusted data; callers must place it in delimited blocks.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from ponder.services.storage.cache import Cache
from ponder.services.text import sandbox
from ponder.services.text.extraction import html_title, html_to_text, pdf_pages
from ponder.services.web.body import ACCEPT_ENCODING, BodyRefused, read_body
from ponder.services.web.netguard import UnsafeURLError, check_url
from ponder.services.web.pinned import pinned_transport
from ponder.services.web.tls import shared_ssl_context
from ponder.settings.configuration import Configuration

USER_AGENT = "ponder/0.1 (local research agent; +https://github.com/ponder)"
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown", "text/x-rst")


@dataclass
class Page:
    """What reading one URL produced: text, or the reason there is none."""

    url: str
    final_url: str
    text: str = ""
    title: str | None = None
    content_type: str | None = None
    reason: str | None = None
    truncated: bool = False
    from_cache: bool = False

    @property
    def ok(self) -> bool:
        return self.reason is None and bool(self.text)


class _Refused(Exception):
    """Internal: stop reading this URL, with the reason."""


class PageReader:
    """Reads web pages concurrently, safely and within limits. Never raises for a bad page."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        max_bytes: int = 3_000_000,
        connect_timeout: float = 5.0,
        read_timeout: float = 10.0,
        total_timeout: float = 20.0,
        parse_timeout: float = 10.0,
        concurrency: int = 5,
        max_redirects: int = 5,
        user_agent: str = USER_AGENT,
        cache: Cache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.allow_private = allow_private
        self.max_bytes = max_bytes
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self.total_timeout = total_timeout
        self.parse_timeout = parse_timeout
        self.max_redirects = max_redirects
        self.user_agent = user_agent
        self.cache = cache
        self._transport = transport  # tests substitute the network here
        self._semaphore = asyncio.Semaphore(concurrency)
        sandbox.prewarm()  # a parser is ready by the time the first page arrives

    @classmethod
    def from_config(
        cls, config: Configuration, cache_dir: Path, warn: Callable[[str], None]
    ) -> PageReader:
        """A reader with the configured private-URL policy and the cache in ``cache_dir``."""
        cache = Cache.from_config(config, cache_dir, warn)
        return cls(allow_private=config.allow_private_urls, cache=cache)

    async def read_many(self, urls: Iterable[str]) -> list[Page]:
        """Read several URLs concurrently (bounded by ``concurrency``), in input order."""
        return list(await asyncio.gather(*(self.read(u) for u in urls)))

    async def read(self, url: str) -> Page:
        """Fetch one URL and extract its text; ``Page.reason`` explains any failure."""
        namespace = "page+private" if self.allow_private else "page"
        cached = await self.cache.aget(namespace, url) if self.cache else None
        if isinstance(cached, dict):
            return Page(**{**cached, "from_cache": True})
        async with self._semaphore:
            # One deadline for the page, however its server paces the bytes (a byte every
            # few seconds never trips a per-read timeout).
            deadline = time.monotonic() + self.total_timeout
            try:
                async with asyncio.timeout(self.total_timeout):
                    page = await self._fetch(url, deadline)
            except TimeoutError:
                page = Page(url, url, reason=f"timed out after {self.total_timeout:g}s")
            except _Refused as exc:
                page = Page(url, url, reason=str(exc))
        if page.ok and self.cache:
            await self.cache.aset(namespace, url, asdict(page))
        return page

    async def _fetch(self, url: str, deadline: float) -> Page:
        headers = {
            "User-Agent": self.user_agent,
            "Accept": "text/html,application/pdf,*/*;q=0.5",
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        # trust_env=False: a proxy from the environment would bypass the address checks.
        async with httpx.AsyncClient(
            timeout=self.timeout,
            headers=headers,
            follow_redirects=False,
            trust_env=False,
            verify=shared_ssl_context(),
            transport=self._transport
            or pinned_transport(allow_private=self.allow_private, verify=shared_ssl_context()),
        ) as client:
            current = url
            for _ in range(self.max_redirects + 1):
                await self._guard(current)
                try:
                    async with client.stream("GET", current) as response:
                        if response.is_redirect and "location" in response.headers:
                            current = _join(response.url, response.headers["location"])
                            continue
                        if response.status_code >= 400:
                            raise _Refused(f"HTTP {response.status_code}")
                        body, truncated = await read_body(response, self.max_bytes)
                        kind = response.headers.get("content-type", "").split(";")[0].strip()
                        encoding = response.charset_encoding or "utf-8"
                except BodyRefused as exc:
                    raise _Refused(str(exc)) from None
                except UnsafeURLError as exc:  # the connection-time check (DNS rebinding)
                    raise _Refused(f"refused: {exc}") from None
                except httpx.TimeoutException:
                    raise _Refused("timed out") from None
                except (httpx.HTTPError, httpx.InvalidURL) as exc:
                    raise _Refused(f"request failed ({type(exc).__name__})") from None
                page = await self._parse(body, kind.lower(), encoding, truncated, deadline)
                page.url, page.final_url = url, current
                return page
        raise _Refused(f"more than {self.max_redirects} redirects")

    async def _guard(self, url: str) -> None:
        try:
            await check_url(url, allow_private=self.allow_private)
        except UnsafeURLError as exc:
            raise _Refused(f"refused: {exc}") from None

    async def _parse(
        self, body: bytes, kind: str, encoding: str, truncated: bool, deadline: float
    ) -> Page:
        """The page's text, parsed in a worker process within what is left of the deadline."""
        seconds = min(self.parse_timeout, deadline - time.monotonic())
        if seconds <= 0:
            raise _Refused(f"timed out after {self.total_timeout:g}s")
        try:
            return await asyncio.to_thread(
                sandbox.run, _extract, body, kind, encoding, truncated, deadline=seconds
            )
        except sandbox.ParseFailed as exc:
            raise _Refused(str(exc)) from None


def _join(base: httpx.URL, location: str) -> str:
    try:
        return str(base.join(location))
    except (httpx.InvalidURL, ValueError):
        raise _Refused(f"invalid redirect location '{location[:100]}'") from None


def _extract(body: bytes, kind: str, encoding: str, truncated: bool) -> Page:
    """Turn a response body into a Page (runs in a worker process, see ``_parse``)."""
    head = body[:512].lstrip().lower()
    if kind == "application/pdf" or (not kind and head.startswith(b"%pdf")):
        if truncated:
            return Page("", "", content_type=kind, reason="PDF larger than the size limit")
        try:
            text = "\n\n".join(p for p in pdf_pages(body) if p)
        except ValueError as exc:
            return Page("", "", content_type=kind, reason=str(exc))
        return _page(text, None, kind, truncated)
    try:
        decoded = body.decode(encoding, errors="replace")
    except LookupError:  # an unknown charset name from the server
        decoded = body.decode("utf-8", errors="replace")
    if kind in _HTML_TYPES or (not kind and head.startswith((b"<!doctype html", b"<html"))):
        return _page(html_to_text(decoded), html_title(decoded), kind, truncated)
    if kind in _TEXT_TYPES:
        return _page(decoded.strip(), None, kind, truncated)
    return Page("", "", content_type=kind, reason=f"unsupported content type '{kind or '?'}'")


def _page(text: str, title: str | None, kind: str, truncated: bool) -> Page:
    reason = None if text.strip() else "no readable text"
    return Page(
        "", "", text=text, title=title, content_type=kind, reason=reason, truncated=truncated
    )
