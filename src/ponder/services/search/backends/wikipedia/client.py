"""Wikipedia through the MediaWiki Action API: no key, one edition per run.

A search is ``action=query&list=search`` (CirrusSearch's ranking), then, for each page
found, its plain text (``prop=extracts&explaintext``, TextExtracts, one whole article per
request as the extension allows) with its URL (``prop=info&inprop=url``). The article is
cut into its sections (``exsectionformat=wiki`` marks them ``== Title ==``); the lead and
the sections that best match the query are the result's passages, named in its location.

Wikimedia's etiquette is followed: requests in series (one at a time per host, for the
whole process), a User-Agent naming ponder, and ``maxlag=5``, so a lagging database
answers ``maxlag`` instead of working harder. An API error comes as JSON with HTTP 200
(``{"error": {"code": …, "info": …}}``); ``maxlag`` and ``ratelimited`` (and HTTP 429/503)
are retried once after the ``Retry-After`` they carry, when it is short.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx

from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.services.search.pacing import Pace
from ponder.services.search.public_api import Busy, polite_get, raise_for_status
from ponder.services.text.extraction import strip_tags
from ponder.services.text.passages import bm25_scores, chunk_text

PACE = Pace(0.0)  # in series, no spacing: Wikimedia asks for no more
MAX_LAG = 5  # seconds of replication lag after which the API should refuse (its advice)
PASSAGES_PER_PAGE = 3  # the lead and the two sections that best match the query
MIN_SECTION_CHARS = 80  # "See also", "References": headings with a line or nothing
_HEADING = re.compile(r"^(={2,6})\s*(.+?)\s*\1\s*$", re.M)
_BUSY_CODES = ("maxlag", "ratelimited")


class WikipediaSearch:
    """One Wikipedia edition's search. [] for no results; SearchBackendError on failure."""

    name = "wikipedia"

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 20.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url
        self.timeout = timeout
        self._transport = transport

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        if not query.strip() or max_results <= 0:
            return []
        data = await self._ask(
            {"list": "search", "srsearch": query, "srlimit": max_results, "srprop": "snippet"}
        )
        hits = [h for h in _list(data, "search") if isinstance(h, dict) and h.get("title")]
        results = []
        for hit in hits[:max_results]:
            page = await self._article(str(hit["title"]))
            if page is not None:
                results.append(self._result(page, strip_tags(str(hit.get("snippet", ""))), query))
        return results

    async def _article(self, title: str) -> dict[str, Any] | None:
        data = await self._ask(
            {
                "prop": "extracts|info",
                "titles": title,
                "explaintext": 1,
                "exsectionformat": "wiki",
                "inprop": "url",
                "redirects": 1,
            }
        )
        pages = [p for p in _list(data, "pages") if isinstance(p, dict)]
        found = [p for p in pages if not p.get("missing") and p.get("extract")]
        return found[0] if found else None  # deleted since the search, or no text

    def _result(self, page: dict[str, Any], snippet: str, query: str) -> SearchResult:
        title = str(page.get("title") or "")
        url = str(page.get("fullurl") or page.get("canonicalurl") or self._article_url(title))
        chosen = best_sections(sections(str(page["extract"])), query)
        return SearchResult(
            title=title,
            url=url,
            snippet=snippet or chosen[0][1][:300],
            content="\n…\n".join(text for _, text in chosen),
            backend=self.name,
            location="; ".join(f"section {heading}" for heading, _ in chosen),
        )

    def _article_url(self, title: str) -> str:
        root = self.base_url.split("/w/api.php", 1)[0]
        return f"{root}/wiki/{quote(title.replace(' ', '_'))}"

    async def _ask(self, params: dict[str, str | int]) -> dict[str, Any]:
        query: dict[str, str | int] = {
            "action": "query",
            "format": "json",
            "formatversion": 2,
            "maxlag": MAX_LAG,
        }
        data: dict[str, Any] = await polite_get(
            "Wikipedia",
            self.base_url,
            {**query, **params},
            PACE,
            self._check,
            timeout=self.timeout,
            transport=self._transport,
        )
        return data

    def _check(self, response: httpx.Response) -> dict[str, Any]:
        raise_for_status(f"Wikipedia at {self.base_url}", response)
        try:
            data = response.json()
        except ValueError:
            raise SearchBackendError(
                f"Wikipedia at {self.base_url} did not answer JSON — is wikipedia_url a "
                "MediaWiki /w/api.php?"
            ) from None
        if not isinstance(data, dict):
            raise SearchBackendError(f"Wikipedia at {self.base_url} returned unexpected JSON")
        error = data.get("error")
        if isinstance(error, dict):
            code, info = str(error.get("code", "?")), str(error.get("info", "")).strip()
            if code in _BUSY_CODES:
                lag = error.get("lag")
                raise Busy(f"{code}: {info}", float(lag) if code == "maxlag" and lag else None)
            raise SearchBackendError(f"Wikipedia refused the request ({code}: {info})")
        return data


def _list(data: dict[str, Any], key: str) -> list[Any]:
    found = (data.get("query") or {}).get(key)
    return found if isinstance(found, list) else []


def sections(extract: str) -> list[tuple[str, str]]:
    """(heading, text) of an article's sections, the lead first, each long one cut into
    passages of about 1,000 characters on paragraph boundaries; near-empty ones left out."""
    marks = list(_HEADING.finditer(extract))
    spans = [("Lead", 0, marks[0].start() if marks else len(extract))]
    for number, mark in enumerate(marks):
        end = marks[number + 1].start() if number + 1 < len(marks) else len(extract)
        spans.append((mark.group(2), mark.end(), end))
    found = []
    for heading, start, end in spans:
        text = extract[start:end].strip()
        if len(text) < MIN_SECTION_CHARS:
            continue
        for part_start, part_end in chunk_text(text):
            found.append((heading, text[part_start:part_end]))
    return found or [("Lead", extract.strip())]


def best_sections(found: list[tuple[str, str]], query: str) -> list[tuple[str, str]]:
    """The lead and the passages that best match ``query`` (BM25), in article order."""
    if len(found) <= PASSAGES_PER_PAGE:
        return found
    scores = bm25_scores([f"{heading} {text}" for heading, text in found], query)
    ranked = sorted(range(1, len(found)), key=lambda i: (-scores[i], i))
    keep = sorted([0, *ranked[: PASSAGES_PER_PAGE - 1]])
    return [found[i] for i in keep]
