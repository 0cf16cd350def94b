"""Finding your documents: every file under the roots that a reader knows how to read, and
a count of what is left out and why (nothing is dropped without a word).

Reading them is :mod:`.reading`'s (in the parsing workers) and each format's reader's
(:mod:`.formats`).
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.search.backends.local.formats import suffixes

Warn = Callable[[str], None]
NOT_REGULAR = "not a regular file (a named pipe, a socket or a device)"
LINK_OUT = (
    "a link that leads out of its folder or into a hidden entry "
    "(read only with PONDER_DOCS_HIDDEN_AND_SYMLINKS)"
)


def _ignore(_: str) -> None:
    return None


@dataclass
class Found:
    """What a walk over the roots found: the files to index, with (mtime_ns, size), and
    what it left out."""

    files: dict[str, tuple[int, int]] = field(default_factory=dict)
    unknown: Counter[str] = field(default_factory=Counter)  # suffix → files of no known type
    # Of ``files``, those never opened, with why: pipes, sockets and devices; links out.
    refused: dict[str, str] = field(default_factory=dict)
    left_out: int = 0  # hidden entries (docs_hidden_and_symlinks)


def discover(
    roots: Sequence[Path],
    warn: Warn = _ignore,
    *,
    hidden: bool = False,
    folders: Sequence[Path] | None = None,
) -> Found:
    """Every file of a known type under the roots, and what was left out.

    Hidden entries below a root (a name starting with "."), and symlinks that lead out of
    their folder (``folders``, else the roots) or into a hidden entry, are left out unless
    ``hidden`` (the operator's ``docs_hidden_and_symlinks``): a folder shared with callers
    often holds a ``.git`` or an editor's ``.env`` beside the documents, and a link to
    ``~/.ssh`` or ``/etc`` would serve what the operator never offered. A root the user
    names is read as named. Symlinked folders are not followed (a link loop would never
    end). Only regular files are read: a named pipe called ``notes.txt`` would hold a
    reader forever. A link out and a file that is no regular file are among ``files``, to
    be skipped with their reason, unopened (``refused``).
    """
    found = Found()
    known = suffixes()
    bounds = [str(folder) for folder in folders or roots]
    for root in roots:
        if root.is_file():
            if root.suffix.lower() in known:
                _add(found, str(root))
            else:
                found.unknown[_suffix(root.name)] += 1
                warn(f"Skipped {root}: {unknown_type(root.name)}.")
            continue
        if not root.is_dir():
            if os.path.lexists(root):
                _add(found, str(root))
            else:
                warn(f"Document path {root} does not exist.")
            continue
        for folder, dirs, names in os.walk(root):
            if not hidden:
                kept = [d for d in dirs if not d.startswith(".")]
                found.left_out += len(dirs) - len(kept)
                dirs[:] = kept
            for name in names:
                if name.startswith(".") and not hidden:
                    found.left_out += 1
                    continue
                if os.path.splitext(name)[1].lower() not in known:
                    found.unknown[_suffix(name)] += 1
                    continue
                path = os.path.join(folder, name)
                if hidden or not os.path.islink(path) or leads_inside(path, bounds):
                    _add(found, path)
                else:  # named among the skipped, never followed
                    _add(found, path, follow=False, refused=LINK_OUT)
    return found


def leads_inside(path: str, folders: Sequence[str]) -> bool:
    """Whether ``path``, its links followed, is one of ``folders`` or lies in one, in no
    hidden entry there."""
    target = os.path.realpath(path)
    for folder in folders:
        inside = os.path.relpath(target, os.path.realpath(folder)).split(os.sep)
        if inside == ["."] or (inside[0] != ".." and not any(p.startswith(".") for p in inside)):
            return True
    return False


def unknown_type(name: str) -> str:
    return f"unknown type ({_suffix(name)}; ponder reads {', '.join(sorted(suffixes()))})"


def unknown_summary(counts: dict[str, int]) -> str:
    """``{".jpg": 12, ".zip": 3}`` → "12 .jpg, 3 .zip" (the commonest first, ten at most)."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{n} {suffix}" for suffix, n in ordered[:10])
    rest = sum(n for _, n in ordered[10:])
    return shown + (f" and {rest} more" if rest else "")


def _suffix(name: str) -> str:
    return os.path.splitext(name)[1].lower() or "(no suffix)"


def _add(found: Found, path: str, follow: bool = True, refused: str | None = None) -> None:
    try:
        info = os.stat(path, follow_symlinks=follow)
    except OSError:
        return
    found.files[path] = (info.st_mtime_ns, info.st_size)
    if refused is None and not stat.S_ISREG(info.st_mode):
        refused = NOT_REGULAR
    if refused is not None:
        found.refused[path] = refused  # skipped unopened, and remembered as skipped
