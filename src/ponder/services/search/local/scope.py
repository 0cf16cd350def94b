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


class Scope:
    """The files of an index that lie at or under ``paths`` (absolute, resolved)."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.paths = sorted({str(p) for p in paths})

    def __repr__(self) -> str:
        return f"Scope({self.paths!r})"

    def contains(self, path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)

    def where(self, column: str = "f.path") -> tuple[str, tuple[str, ...]]:
        """An SQL condition on ``column`` and its parameters."""
        parts, params = [], []
        for path in self.paths:
            base = path.rstrip(os.sep)
            parts.append(f"({column} = ? OR ({column} >= ? AND {column} < ?))")
            params += [path, base + os.sep, base + chr(ord(os.sep) + 1)]
        return "(" + " OR ".join(parts) + ")", tuple(params)


def scope_within(roots: Iterable[Path], wanted: Iterable[Path]) -> Scope | None:
    """The scope of ``wanted`` in an index of ``roots``; None when it is the whole index."""
    wanted = list(wanted)
    if not wanted or set(wanted) >= set(roots):
        return None
    return Scope(wanted)
