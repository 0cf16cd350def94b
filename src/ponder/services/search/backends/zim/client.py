"""ZIM archives searched as one backend: each archive in a parsing worker, under a deadline."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from ponder.services.search.backends.zim import archive
from ponder.services.search.base import Origin, SearchBackendError, SearchResult
from ponder.services.search.merge import merge_by_rank
from ponder.services.text import sandbox

MAX_ARTICLE_BYTES = 3_000_000  # of an article's HTML: the most a web page may be
DEADLINE = 30.0  # seconds for one archive to answer one query, its articles read
SNIPPET_CHARS = 300

Warn = Callable[[str], None]
Run = Callable[..., Any]  # sandbox.run's shape: (function, *args, deadline=)


class ZimSearch:
    """Kiwix ZIM archives. A hit is an article, read whole as a page is: the run cuts it
    into passages. Keyed by the archive and the article's path: the article's address on
    ``kiwix_url`` when that is set, else ``/path/to/archive.zim/<article path>``."""

    name = "zim"

    def __init__(
        self,
        archives: Sequence[str],
        kiwix_url: str | None,
        warn: Warn,
        run: Run = sandbox.run,
        unlinked: str | None = None,
    ) -> None:
        self.archives = [os.path.abspath(os.path.expanduser(path)) for path in archives]
        self.kiwix_url = kiwix_url
        self.unlinked = unlinked  # a folder whose archives kiwix-serve does not serve
        self._warn = warn
        self._run = run  # in a parsing worker; the contract test's fixture runs it here

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        outcomes = await asyncio.gather(
            *(self._search_one(path, query, max_results) for path in self.archives),
            return_exceptions=True,
        )
        lists, errors = [], []
        for path, outcome in zip(self.archives, outcomes, strict=True):
            if isinstance(outcome, sandbox.ParseFailed):
                errors.append(f"{os.path.basename(path)}: {outcome}")
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                lists.append(outcome)
        if not lists:
            raise SearchBackendError("No ZIM archive could be searched — " + "; ".join(errors))
        for error in errors:
            self._warn(f"A ZIM archive could not be searched: {error}")
        return merge_by_rank(lists)[:max_results]

    async def _search_one(self, path: str, query: str, limit: int) -> list[SearchResult]:
        articles = await asyncio.to_thread(
            self._run, archive.search, path, query, limit, MAX_ARTICLE_BYTES, deadline=DEADLINE
        )
        return [self._result(path, article) for article in articles]

    def _unlinked(self, path: str) -> bool:
        if not self.unlinked:
            return False
        return os.path.realpath(path).startswith(os.path.join(self.unlinked, ""))

    def _result(self, path: str, article: archive.Article) -> SearchResult:
        snippet = " ".join(article.text[:SNIPPET_CHARS].split())
        origin: Origin
        if self.kiwix_url and not self._unlinked(path):
            book = quote(archive.book_name(path))
            url = f"{self.kiwix_url}/content/{book}/{quote(article.path)}"
            origin = "web"  # an address to open; its text is here already, never fetched
        else:
            url, origin = f"{path}/{article.path}", "local"
        return SearchResult(
            title=article.title,
            url=url,
            snippet=snippet,
            content=article.text,
            origin=origin,
            backend=self.name,
            location=f"{os.path.basename(path)}: {article.path}",
        )
