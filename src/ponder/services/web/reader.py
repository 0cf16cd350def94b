"""The page reader: fetch a URL safely and reduce it to its main text.

HTML goes through trafilatura: in published main-content extraction benchmarks it is at or
near the top, it is pure Python on lxml (no browser), and it also handles boilerplate
such as menus and footers that would waste a small model's context. When it finds nothing
(tiny or odd pages) a crude tag strip keeps whatever text there is. PDFs go through pdfium.

The reader never raises for a bad page: it returns a ``Page`` whose ``reason`` says why it
was not read. Page text is untrusted data; callers must place it in delimited blocks.
"""

from __future__ import annotations

import asyncio
import html
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from ponder.config import Configuration
from ponder.services.storage.cache import Cache
from ponder.services.text.words import content_words, stem
from ponder.services.web.netguard import UnsafeURLError, check_url
from ponder.services.web.pinned import pinned_transport
from ponder.services.web.tls import shared_ssl_context

USER_AGENT = "ponder/0.1 (local research agent; +https://github.com/ponder)"
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown", "text/x-rst")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n\s*")


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


# -- text extraction (shared with the local index) -------------------------------------


def strip_tags(markup: str) -> str:
    """A crude HTML-to-text fallback: drop scripts, styles and tags, keep paragraphs."""
    text = re.sub(r"(?is)<(script|style|noscript|template)\b.*?</\1\s*>", " ", markup)
    text = re.sub(r"(?is)<!--.*?-->", " ", text)
    text = re.sub(r"(?i)</?(p|div|br|li|h[1-6]|tr|section|article)\b[^>]*>", "\n\n", text)
    text = html.unescape(re.sub(r"(?s)<[^>]+>", " ", text))
    paragraphs = (" ".join(part.split()) for part in re.split(r"\n\s*\n", text))
    return "\n\n".join(p for p in paragraphs if p)


def html_title(markup: str) -> str | None:
    match = re.search(r"(?is)<title[^>]*>(.*?)</title>", markup)
    title = " ".join(html.unescape(match.group(1)).split()) if match else ""
    return title or None


def html_to_text(markup: str) -> str:
    """Main text of an HTML page (trafilatura, falling back to a tag strip)."""
    text = ""
    try:
        import trafilatura

        text = trafilatura.extract(markup, include_comments=False, include_tables=True) or ""
    except Exception:  # a third-party parser on hostile input: any failure means fallback
        text = ""
    return text.strip() or strip_tags(markup)


def pdf_pages(data: bytes) -> list[str]:
    """Text of each page of a PDF. Raises ValueError for a corrupt or encrypted file.

    pdfium (the PDF engine of Chromium) reads pages about four times faster than pypdf did here
    (see the README's indexing figures), and is hardened against hostile files.
    """
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = str(exc)
        if "password" in reason.lower():
            raise ValueError("the PDF is encrypted") from None
        raise ValueError(f"unreadable PDF ({reason})") from None
    try:
        return [_page_text(document, number) for number in range(len(document))]
    except pdfium.PdfiumError as exc:
        raise ValueError(f"unreadable PDF ({exc})") from None
    finally:
        document.close()


def _page_text(document: Any, number: int) -> str:
    page = document[number]
    try:
        text_page = page.get_textpage()
        try:
            text: str = text_page.get_text_range()
        finally:
            text_page.close()
    finally:
        page.close()
    # pdfium ends lines with \r\n and marks soft hyphens; plain newlines for passages.
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "").strip()


# -- passages ---------------------------------------------------------------------------


def paragraphs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each paragraph: text between blank lines, without outer whitespace."""
    spans = []
    pos = 0
    for sep in [*_BLANK_LINE.finditer(text), None]:
        stop = sep.start() if sep else len(text)
        piece = text[pos:stop]
        stripped = piece.strip()
        if stripped:
            first = pos + (len(piece) - len(piece.lstrip()))
            spans.append((first, first + len(stripped)))
        pos = sep.end() if sep else stop
    return spans


def chunk_text(text: str, target: int = 1000, limit: int = 1200) -> list[tuple[int, int]]:
    """Split text into (start, end) spans on paragraph boundaries, each about ``target`` chars.

    Paragraphs are joined until a chunk reaches ``target``; one longer than ``limit`` is cut
    at the last whitespace before the limit.
    """
    spans: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    for p_start, p_end in paragraphs(text):
        if start is not None and p_end - start > limit:
            spans.append((start, end))
            start = None
        if start is None:
            start = p_start
        end = p_end
        while end - start > limit:
            window = text[start + target // 2 : start + limit]
            gap = max(window.rfind(" "), window.rfind("\n"))
            cut = start + target // 2 + gap if gap >= 0 else start + limit
            spans.append((start, cut))
            start = cut + 1 if gap >= 0 else cut
        if end - start >= target:
            spans.append((start, end))
            start = None
    if start is not None and end > start:
        spans.append((start, end))
    return spans


def tokenize(text: str) -> list[str]:
    """Stems of the content words (stopwords and question words dropped)."""
    return [stem(w) for w in content_words(text)]


def bm25_scores(passages: list[str], query: str, k1: float = 1.5, b: float = 0.75) -> list[float]:
    """Okapi BM25 score of each passage for the query."""
    terms = set(tokenize(query))
    docs = [Counter(tokenize(p)) for p in passages]
    if not docs or not terms:
        return [0.0] * len(passages)
    avg_len = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scores = []
    for doc in docs:
        length = sum(doc.values())
        score = 0.0
        for term in terms:
            tf = doc.get(term, 0)
            if tf:
                idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg_len))
        scores.append(score)
    return scores


def best_passages(text: str, query: str, budget_chars: int) -> list[str]:
    """The passages of ``text`` most relevant to ``query`` that fit in ``budget_chars``.

    Passages are chosen by BM25 and returned in document order, so the result still reads
    as the page does. With no matching word, the opening passages are kept.
    """
    text = text.strip()
    if budget_chars <= 0 or not text:
        return []
    if len(text) <= budget_chars:
        return [text]
    size = max(200, min(800, budget_chars // 3))
    spans = chunk_text(text, target=size, limit=size + size // 4)
    passages = [text[s:e] for s, e in spans]
    scores = bm25_scores(passages, query)
    order = sorted(range(len(passages)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    used = 0
    for i in order:
        if used + len(passages[i]) <= budget_chars:
            chosen.append(i)
            used += len(passages[i])
    if not chosen:  # every passage is larger than the budget: cut the best one
        best = passages[order[0]][:budget_chars]
        return [best.rsplit(" ", 1)[0] if " " in best else best]
    return [passages[i] for i in sorted(chosen)]


# -- fetching ---------------------------------------------------------------------------


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
        read_timeout: float = 15.0,
        total_timeout: float = 30.0,
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
        self.max_redirects = max_redirects
        self.user_agent = user_agent
        self.cache = cache
        self._transport = transport  # tests substitute the network here
        self._semaphore = asyncio.Semaphore(concurrency)

    @classmethod
    def from_config(cls, config: Configuration, warn: Callable[[str], None]) -> PageReader:
        """A reader with the configured private-URL policy and cache."""
        return cls(allow_private=config.allow_private_urls, cache=Cache.from_config(config, warn))

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
            try:
                async with asyncio.timeout(self.total_timeout):
                    page = await self._fetch(url)
            except TimeoutError:
                page = Page(url, url, reason=f"timed out after {self.total_timeout:g}s")
            except _Refused as exc:
                page = Page(url, url, reason=str(exc))
        if page.ok and self.cache:
            await self.cache.aset(namespace, url, asdict(page))
        return page

    async def _fetch(self, url: str) -> Page:
        headers = {"User-Agent": self.user_agent, "Accept": "text/html,application/pdf,*/*;q=0.5"}
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
                        body, truncated = await self._read_capped(response)
                        kind = response.headers.get("content-type", "").split(";")[0].strip()
                        encoding = response.charset_encoding or "utf-8"
                except UnsafeURLError as exc:  # the connection-time check (DNS rebinding)
                    raise _Refused(f"refused: {exc}") from None
                except httpx.TimeoutException:
                    raise _Refused("timed out") from None
                except (httpx.HTTPError, httpx.InvalidURL) as exc:
                    raise _Refused(f"request failed ({type(exc).__name__})") from None
                page = await asyncio.to_thread(_extract, body, kind.lower(), encoding, truncated)
                page.url, page.final_url = url, current
                return page
        raise _Refused(f"more than {self.max_redirects} redirects")

    async def _guard(self, url: str) -> None:
        try:
            await check_url(url, allow_private=self.allow_private)
        except UnsafeURLError as exc:
            raise _Refused(f"refused: {exc}") from None

    async def _read_capped(self, response: httpx.Response) -> tuple[bytes, bool]:
        buffer = bytearray()
        async for chunk in response.aiter_bytes():
            buffer.extend(chunk)
            if len(buffer) >= self.max_bytes:
                return bytes(buffer[: self.max_bytes]), True
        return bytes(buffer), False


def _join(base: httpx.URL, location: str) -> str:
    try:
        return str(base.join(location))
    except (httpx.InvalidURL, ValueError):
        raise _Refused(f"invalid redirect location '{location[:100]}'") from None


def _extract(body: bytes, kind: str, encoding: str, truncated: bool) -> Page:
    """Turn a response body into a Page (runs in a worker thread: extraction is CPU-bound)."""
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
