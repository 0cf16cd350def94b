"""A caller's own files among the operator's: the Kiwix archives and reference libraries a
user of ``ponder ui`` uploaded into their own collection (``own`` folders), which only
their runs may add to the operator's ``zim`` and ``library``.

Also what both this and the document checks of :mod:`.callers` ask of a path inside a
folder: that it passes no hidden name on the way (an indexed folder skips those).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ponder.settings.configuration import Configuration
from ponder.settings.paths import path_problem

# Operator fields a caller may extend with files of their own folders (``own``) alone.
OWN_FILE_FIELDS = {"zim": "ZIM archives", "library": "reference libraries"}
ARCHIVE_SUFFIX = ".zim"


def holds_archive(own: Sequence[Path]) -> bool:
    """Whether a folder of the caller's own holds an archive (then search=zim is theirs)."""
    for folder in own:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        if any(n.lower().endswith(ARCHIVE_SUFFIX) and not n.startswith(".") for n in names):
            return True
    return False


def own_files(
    name: str, value: Any, operator: Configuration, own: Sequence[Path]
) -> str | tuple[list[str]]:
    """A caller's ``zim`` or ``library``: the operator's own entries (kept as they are),
    and files inside the caller's own folders (resolved), nothing else."""
    paths = value.split(os.pathsep) if isinstance(value, str) else value
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        return f"{name} must be a list of paths"
    theirs = set(getattr(operator, name))
    folders = [Path(folder).resolve() for folder in own]
    kept, outside = [], []
    for raw in paths:
        if raw in theirs:
            kept.append(raw)
            continue
        if raw.startswith("~") or path_problem(raw):
            outside.append(raw)
            continue
        path = Path(raw).resolve()
        holders = [f for f in folders if f in path.parents]
        if not holders or hidden_below(path, holders):
            outside.append(raw)
        else:
            kept.append(str(path))
    if outside:
        return (
            f"{name} {', '.join(outside)}: the {OWN_FILE_FIELDS[name]} a run searches are "
            "set by the server's operator; a caller may add only their own uploads"
        )
    return (kept,)


def hidden_below(path: Path, roots: list[Path]) -> bool:
    """Whether ``path`` (resolved, so through any symlink) passes a dot-name below every
    root that holds it: an indexed folder skips those, so a caller may not name them."""
    return all(any(p.startswith(".") for p in path.relative_to(root).parts) for root in roots)
