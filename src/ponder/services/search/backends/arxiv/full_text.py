"""arXiv papers read in full (``fetch_full_page``): each result's PDF through ponder's reader.

The reader fetches safely (the private-address guard, a size cap, time limits) and pdfium
extracts the text. PDFs come from arXiv too, so each download waits for its turn in
arXiv's pace (one request every three seconds); a text read once is kept in the cache, so
asking again costs no request at all. A PDF that cannot be read leaves its result with the
abstract, and one warning says why.
"""

from __future__ import annotations

from collections.abc import Callable

from ponder.services.search.backends.arxiv import client as arxiv
from ponder.services.search.base import SearchBackend, SearchResult
from ponder.services.search.pacing import PaceTimeout
from ponder.services.storage.cache import Cache
from ponder.services.web.reader import PageReader

Warn = Callable[[str], None]
MAX_PDF_BYTES = 30_000_000  # arXiv papers with figures run to tens of MB
NAMESPACE = "arxiv-pdf"
PDF_SECONDS = 45.0  # to read one PDF, whatever the server does
MAX_WAIT = 120.0  # for a PDF's turn behind other arXiv requests


class ArxivFullText:
    """``backend``'s results (arXiv's), each with the text of its PDF after the abstract."""

    def __init__(
        self, backend: SearchBackend, reader: PageReader, cache: Cache | None, warn: Warn
    ) -> None:
        self.backend = backend
        self.name = backend.name
        self.base_url = getattr(backend, "base_url", "")
        self._reader = reader
        self._cache = cache
        self._warn = warn
        # As the reader's own cache: text read from a private address stays apart.
        self._namespace = NAMESPACE + ("+private" if reader.allow_private else "")

    @classmethod
    def with_reader(
        cls, backend: SearchBackend, allow_private: bool, cache: Cache | None, warn: Warn
    ) -> ArxivFullText:
        reader = PageReader(
            allow_private=allow_private, max_bytes=MAX_PDF_BYTES, total_timeout=PDF_SECONDS
        )
        return cls(backend, reader, cache, warn)

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        results = await self.backend.search(query, max_results)
        for result in results:  # one at a time anyway: arXiv's pace
            text, host_down = await self._full_text(result.url)
            if text:
                result.content = f"{result.snippet}\n\n{text}"
                result.location = "abstract and full text (PDF)"
            if host_down:
                break  # the rest would wait out the same time limit, one after another
        return results

    async def _full_text(self, abs_url: str) -> tuple[str | None, bool]:
        """The PDF's text (None if unreadable), and whether its host failed to answer."""
        url = arxiv.pdf_url(abs_url)
        if self._cache is not None:
            cached = await self._cache.aget(self._namespace, url)
            if isinstance(cached, str):
                return cached, False
        try:
            async with arxiv.PACE.turn(url, max_wait=MAX_WAIT):
                page = await self._reader.read(url)
        except PaceTimeout:
            self._warn(f"Kept the abstract of {abs_url}: its PDF waited too long for its turn.")
            return None, True
        if not page.ok:
            self._warn(
                f"Kept the abstract of {abs_url}: its PDF could not be read ({page.reason})."
            )
            return None, (page.reason or "").startswith(("timed out", "request failed"))
        if self._cache is not None:
            await self._cache.aset(self._namespace, url, page.text)
        return page.text, False
