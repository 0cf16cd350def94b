"""The API for Kiwix ZIM archives: what one holds, as ``ponder doctor`` and the UI's
Documents page say it — its title, its article count, and whether it has a full-text index.

An archive is opened by libzim in a parsing worker (:mod:`ponder.services.text.sandbox`),
under a deadline, as a run opens it: an archive may be a stranger's bytes (a user's
upload). What was read is kept until the file changes, so a page that lists archives does
not open them again on each visit.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass

from ponder.core.errors import SearchError

DESCRIBE_SECONDS = 30.0
_KEPT = 64  # archives described, kept in memory


@dataclass(frozen=True)
class ArchiveStatus:
    """One archive: its file, its title, its articles, how it is searched."""

    path: str
    title: str
    articles: int
    fulltext: bool  # a full-text index; else its titles only

    def said(self) -> str:
        """ "“Python 3.11 documentation”, 12 articles, full-text index"."""
        index = "full-text index" if self.fulltext else "titles only (no full-text index)"
        count = "1 article" if self.articles == 1 else f"{self.articles} articles"
        return f"“{self.title}”, {count}, {index}"


_SEEN: dict[tuple[str, int, int], ArchiveStatus] = {}
_LOCK = threading.Lock()


def reads_archives() -> bool:
    """Whether this installation reads ZIM archives (libzim, the extra ponder[zim])."""
    return importlib.util.find_spec("libzim") is not None


def archive_status(path: str) -> ArchiveStatus:
    """What the archive at ``path`` holds. SearchError, saying why, when it cannot be
    read: libzim missing, no such file, not a ZIM archive, or one its reader gives up on."""
    from ponder.services.search.backends.zim.archive import describe
    from ponder.services.text.sandbox import ParseFailed, run

    name = os.path.basename(path)
    if not reads_archives():
        raise SearchError(
            "ZIM archives need libzim, an optional package: pip install 'ponder[zim]'."
        )
    try:
        info = os.stat(path)
    except OSError:
        raise SearchError(f"There is no ZIM archive at {path}.") from None
    key = (os.path.realpath(path), info.st_mtime_ns, info.st_size)
    with _LOCK:
        if key in _SEEN:
            return _SEEN[key]
    try:
        about = run(describe, path, deadline=DESCRIBE_SECONDS)
    except ParseFailed as exc:
        raise SearchError(f"{name} is not a ZIM archive ponder can read: {exc}.") from None
    status = ArchiveStatus(path, about.title, about.articles, about.fulltext)
    with _LOCK:
        while len(_SEEN) >= _KEPT:
            _SEEN.pop(next(iter(_SEEN)))
        _SEEN[key] = status
    return status
