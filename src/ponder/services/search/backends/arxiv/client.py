"""arXiv through its query API (an Atom feed): no key, one request every three seconds.

A query becomes ``search_query=all:w1 OR all:w2 …`` over its content words, sorted by
relevance. Each entry is a result: its abs page as the URL, its title with authors and
date as the title, its abstract as the passage. arXiv's terms ask for no more than one
request every three seconds over one connection, from everything a user runs: the pace is
shared by the whole process. Errors come as a feed with one entry titled ``Error`` (a
malformed query, with HTTP 200 or 400); throttling as a bare ``Rate exceeded.`` or HTTP
429/503. Full texts (``fetch_full_page``) are read from the PDFs by
:mod:`ponder.services.search.backends.arxiv.full_text`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import httpx

from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.services.search.pacing import Pace
from ponder.services.search.public_api import Busy, polite_get, raise_for_status
from ponder.services.text.words import STOPWORDS

INTERVAL = 3.0  # seconds between two requests to arXiv (its terms of use)
PACE = Pace(INTERVAL)
MAX_TERMS = 8
_ATOM = "{http://www.w3.org/2005/Atom}"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def search_query(query: str) -> str:
    """arXiv's query syntax for a plain-language query: its content words, any field.

    Words are ORed (arXiv ranks papers matching more of them first); arXiv's own
    operators and field prefixes in the text are taken as words, never as syntax.
    """
    words = [w for w in _WORD.findall(query) if w.upper() not in ("AND", "OR", "ANDNOT")]
    content = [w for w in words if w.lower() not in STOPWORDS and len(w) > 1] or words
    unique = list(dict.fromkeys(w.lower() for w in content))[:MAX_TERMS]
    return " OR ".join(f"all:{word}" for word in unique)


class ArxivSearch:
    """Papers whose metadata match the query. [] for none; SearchBackendError on failure."""

    name = "arxiv"

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
        terms = search_query(query)
        if not terms or max_results <= 0:
            return []
        params: dict[str, str | int] = {
            "search_query": terms,
            "start": 0,
            "max_results": max_results,
            "sortBy": "relevance",
        }
        entries: list[SearchResult] = await polite_get(
            "arXiv",
            self.base_url,
            params,
            PACE,
            self._check,
            timeout=self.timeout,
            transport=self._transport,
        )
        return entries[:max_results]

    def _check(self, response: httpx.Response) -> list[SearchResult]:
        body = response.text.strip()
        if body.lower().startswith("rate exceeded"):
            raise Busy("Rate exceeded", None)
        if response.status_code == 400 and body.startswith("<"):
            return self._entries(body)  # raises with the error entry's message
        raise_for_status(f"arXiv at {self.base_url}", response)
        return self._entries(body)

    def _entries(self, body: str) -> list[SearchResult]:
        try:
            feed = ET.fromstring(body)
            if feed.tag != f"{_ATOM}feed":
                raise ET.ParseError("not an Atom feed")
        except ET.ParseError:
            raise SearchBackendError(
                f"arXiv at {self.base_url} did not answer an Atom feed — is arxiv_url its "
                "/api/query?"
            ) from None
        results = []
        for entry in feed.iter(f"{_ATOM}entry"):
            if _is_error(entry):
                summary = _text(entry, "summary") or "no reason given"
                raise SearchBackendError(f"arXiv refused the query: {summary}")
            result = _result(entry)
            if result is not None:
                results.append(result)
        return results


def _is_error(entry: ET.Element) -> bool:
    return "/api/errors" in _text(entry, "id") or _text(entry, "title") == "Error"


def _text(element: ET.Element, tag: str) -> str:
    """An element's text, hard line wraps joined."""
    found = element.find(f"{_ATOM}{tag}")
    return " ".join((found.text or "").split()) if found is not None else ""


def _result(entry: ET.Element) -> SearchResult | None:
    abstract = _text(entry, "summary")
    url = _abs_page(entry)
    if not url or not abstract:
        return None
    authors = [_text(a, "name") for a in entry.findall(f"{_ATOM}author")]
    date = _text(entry, "published")[:10]
    return SearchResult(
        title=f"{_text(entry, 'title') or url} — {_byline(authors)}{', ' + date if date else ''}",
        url=url,
        snippet=abstract,
        content=abstract,
        backend="arxiv",
        location="abstract",
    )


def _abs_page(entry: ET.Element) -> str:
    for link in entry.findall(f"{_ATOM}link"):
        if link.get("rel") == "alternate" and link.get("type", "text/html") == "text/html":
            return link.get("href", "")
    return _text(entry, "id")


def _byline(authors: list[str]) -> str:
    named = [a for a in authors if a]
    if not named:
        return "unknown authors"
    return ", ".join(named[:3]) + (" et al." if len(named) > 3 else "")


def pdf_url(abs_url: str) -> str:
    """The PDF of a paper from its abs page (arXiv's own URL scheme, also a mirror's)."""
    return abs_url.replace("/abs/", "/pdf/", 1)
