"""One ZIM archive, searched and read inside a parsing worker (:mod:`ponder.services.text.sandbox`).

libzim is C++ reading a file that came from elsewhere, and an article is HTML someone
else wrote: both run where a deadline and a memory ceiling hold them, as a web page's
parsing does. A worker keeps each archive it opened, so a run's later queries skip the
opening.

Searching: the archive's full-text (Xapian) index when it has one, else its title index.
Either matches all of a query's words at once, so a question in plain words ("how do I
compress files in the gzip format") would find little. With the full-text index, the
whole query's hits and each content word's are fused, a word weighted by how rare it is
in the archive (as BM25 weighs it). A title index gives each word's titles in no useful
order, so there each title found is scored by the rare words of the question it holds.
"""

from __future__ import annotations

import contextlib
import html
import math
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ponder.services.text.extraction import html_to_text, page_text
from ponder.services.text.passages import bm25_scores
from ponder.services.text.words import content_words, stem, stems

MAX_TERMS = 8  # words of a query searched one by one
TITLE_CANDIDATES = 100  # titles taken per word from a title index
TITLE_RERANKED = 20  # of those, the best read and ranked again by their text
_RANK_DAMPING = 10  # how fast a hit's weight falls with its rank (as RRF's k)
_MAX_REDIRECTS = 5
KEPT_OPEN = 8  # archives a worker keeps open between searches, the latest used
# This worker's open archives, by file identity, the latest used last. Few, and dropped when
# their file changes or goes: an open archive holds its file (and its disk space) open.
_OPEN: OrderedDict[tuple[str, int, int], Any] = OrderedDict()


@dataclass(frozen=True)
class About:
    """What ``ponder doctor`` says of an archive."""

    title: str
    articles: int
    fulltext: bool
    name: str  # its file name without .zim: kiwix-serve's book name


@dataclass(frozen=True)
class Article:
    path: str
    title: str
    text: str
    truncated: bool


def describe(path: str) -> About:
    """Opened, read and closed again: an archive being checked (an upload) is not kept."""
    from libzim.reader import Archive

    archive = Archive(path)
    return About(
        _metadata(archive, "Title") or os.path.basename(path),
        archive.article_count,
        bool(archive.has_fulltext_index),
        book_name(path),
    )


def search(path: str, query: str, limit: int, max_bytes: int) -> list[Article]:
    """The ``limit`` best articles for ``query``, each read as text (its first
    ``max_bytes`` bytes of HTML, as a web page is read)."""
    archive = _archive(path)
    if archive.has_fulltext_index:
        pages = _pages(archive, ranked(archive, query, limit * 2), max_bytes)
    else:
        pages = by_text(_pages(archive, ranked(archive, query, TITLE_RERANKED), max_bytes), query)
    articles = []
    for page in pages:
        text = html_to_text(page.markup)
        if text.strip():
            articles.append(Article(page.path, page.title, text, page.truncated))
        if len(articles) == limit:
            break
    return articles


@dataclass(frozen=True)
class _Page:
    path: str
    title: str
    markup: str
    truncated: bool


def _pages(archive: Any, paths: list[str], max_bytes: int) -> list[_Page]:
    """The HTML pages at ``paths`` (a redirect's target), each once."""
    found: dict[str, _Page] = {}
    for article_path in paths:
        page = _page(archive, article_path, max_bytes)
        if page is not None:
            found.setdefault(page.path, page)
    return list(found.values())


def by_text(pages: list[_Page], query: str) -> list[_Page]:
    """``pages`` ranked by BM25 on their text, among themselves: a title index finds the
    candidates, their words choose among them (the quick parse: only the chosen are read
    for their main text)."""
    scores = bm25_scores([page_text(page.markup) for page in pages], query, k1=1.2)
    return [pages[i] for i in sorted(range(len(pages)), key=lambda i: -scores[i])]


def ranked(archive: Any, query: str, limit: int) -> list[str]:
    """Article paths, best first."""
    terms = list(dict.fromkeys(content_words(query)))[:MAX_TERMS] or query.lower().split()[:1]
    if not terms:
        return []
    if not archive.has_fulltext_index:
        return _by_title(archive, terms, limit)
    total = max(archive.article_count, 1)
    scores: dict[str, float] = {}
    weights = []
    for term in terms:
        hits, matches = _hits(archive, term, limit)
        weight = math.log(1 + total / (1 + matches))  # a rare word tells pages apart
        weights.append(weight)
        for rank, found in enumerate(hits):
            scores[found] = scores.get(found, 0.0) + weight / (_RANK_DAMPING + rank)
    if len(terms) > 1:
        hits, _ = _hits(archive, " ".join(terms), limit)
        for rank, found in enumerate(hits):  # every word at once: worth them all
            scores[found] = scores.get(found, 0.0) + sum(weights) / (_RANK_DAMPING + rank)
    return sorted(scores, key=lambda found: -scores[found])[:limit]


def _by_title(archive: Any, terms: list[str], limit: int) -> list[str]:
    """Titles holding the question's words, scored by the rarest of them they hold (and
    the article's own name: ``library/csv.html`` is about csv), shorter titles first."""
    total = max(archive.article_count, 1)
    rarity: dict[str, float] = {}
    found: dict[str, str] = {}  # path → what it is called
    for term in terms:
        hits, matches = _hits(archive, term, TITLE_CANDIDATES)
        rarity[stem(term)] = math.log(1 + total / (1 + matches))
        for path in hits:
            found.setdefault(path, "")
    for path in found:
        with contextlib.suppress(KeyError):
            found[path] = f"{archive.get_entry_by_path(path).title} {_name(path)}"
    scores = {
        path: sum(rarity.get(word, 0.0) for word in stems(html.unescape(name)))
        for path, name in found.items()
    }
    return sorted(scores, key=lambda path: (-scores[path], len(found[path])))[:limit]


def _name(path: str) -> str:
    """An article's own name, from its path: ``library/os.path.html`` → ``os.path``."""
    return os.path.basename(path).rsplit(".", 1)[0] if "." in path else os.path.basename(path)


def _hits(archive: Any, text: str, limit: int) -> tuple[list[str], int]:
    """Paths matching ``text`` (full text, else titles), and how many match in all."""
    if archive.has_fulltext_index:
        from libzim.search import Query, Searcher

        done = Searcher(archive).search(Query().set_query(text))
    else:
        from libzim.suggestion import SuggestionSearcher

        done = SuggestionSearcher(archive).suggest(text)
    return list(done.getResults(0, limit)), done.getEstimatedMatches()


def _page(archive: Any, path: str, max_bytes: int) -> _Page | None:
    """The page at ``path`` (through redirects), its first ``max_bytes`` bytes; None for
    what is no page (an image, a stylesheet, an entry the index names but the archive
    lacks, a chain of redirects)."""
    try:
        entry = archive.get_entry_by_path(path)
    except KeyError:
        return None
    for _ in range(_MAX_REDIRECTS):
        if not entry.is_redirect:
            break
        entry = entry.get_redirect_entry()
    else:
        return None
    item = entry.get_item()
    if not item.mimetype.startswith(("text/html", "application/xhtml")):
        return None
    markup = bytes(item.content[:max_bytes]).decode("utf-8", errors="replace")
    title = html.unescape(entry.title) or entry.path
    return _Page(entry.path, title, markup, item.size > max_bytes)


def _archive(path: str) -> Any:
    from libzim.reader import Archive

    stat = os.stat(path)
    key = (path, stat.st_ino, stat.st_mtime_ns)
    for stale in [k for k in _OPEN if k[0] == path and k != key]:
        del _OPEN[stale]  # the file was replaced or rewritten
    if key in _OPEN:
        _OPEN.move_to_end(key)
    else:
        _OPEN[key] = Archive(path)
        while len(_OPEN) > KEPT_OPEN:
            _OPEN.popitem(last=False)
    return _OPEN[key]


def _metadata(archive: Any, name: str) -> str:
    try:
        return bytes(archive.get_metadata(name)).decode("utf-8", errors="replace").strip()
    except RuntimeError:  # libzim: no such metadata
        return ""


def book_name(path: str) -> str:
    """The name kiwix-serve gives the archive's book in its addresses: its file name."""
    return os.path.basename(path).removesuffix(".zim")
