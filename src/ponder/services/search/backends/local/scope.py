"""A part of a folder's index: the files under some of its sub-folders (or single files).

One index serves a folder and every set of roots inside it (:mod:`.indexes`), so a search
of ``root/a`` reads the index of ``root`` through a scope. In SQL a scope is a range of
paths per sub-folder — ``path = 'root/a' OR 'root/a/' <= path < 'root/a0'`` ('0' follows
'/') — so SQLite compares text and calls no Python per row.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ponder.services.search.backends.local.files import leads_inside


class Scope:
    """The files of an index that lie at or under ``paths`` (absolute, resolved).

    ``links_bounded`` (unless the operator allows links out, docs_hidden_and_symlinks): a
    file that is a link is the scope's only when it leads inside the scope too.
    """

    def __init__(self, paths: Iterable[Path], links_bounded: bool = True) -> None:
        self.paths = sorted({str(p) for p in paths})
        self.links_bounded = links_bounded

    def __repr__(self) -> str:
        return f"Scope({self.paths!r})"

    def contains(self, path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)

    def admits(self, path: str) -> bool:
        """Whether a file of the scope may be read through it: not a link, or one that
        leads inside the scope (checked now: a link swapped since indexing is seen)."""
        return not os.path.islink(path) or leads_inside(path, self.paths)

    def where(self, column: str = "f.path") -> tuple[str, tuple[str, ...]]:
        """An SQL condition on ``column`` and its parameters."""
        parts, params = [], []
        for path in self.paths:
            base = path.rstrip(os.sep)
            parts.append(f"({column} = ? OR ({column} >= ? AND {column} < ?))")
            params += [path, base + os.sep, base + chr(ord(os.sep) + 1)]
        return "(" + " OR ".join(parts) + ")", tuple(params)


def scope_within(
    roots: Iterable[Path], wanted: Iterable[Path], links_bounded: bool = True
) -> Scope | None:
    """The scope of ``wanted`` in an index of ``roots``; None when it is the whole index."""
    wanted = list(wanted)
    if not wanted or set(wanted) >= set(roots):
        return None
    return Scope(wanted, links_bounded)
