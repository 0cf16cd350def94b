"""Where a library's attachments lie, and which of them may be read.

A library names its files relative to its own folder (Zotero's Better BibTeX, JabRef) or
by absolute paths. One is read only when it lies inside the library file's own folder tree
or one of the operator's document roots (``docs_roots``), its links followed and no
hidden entry on the way — the rules of a document folder (:func:`..files.leads_inside`):
a library can name ``../../etc/passwd`` or hold a link out, and neither is ever opened.
With ``docs_hidden_and_symlinks`` the path itself must still lie inside, as written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from ponder.services.search.backends.local.files import leads_inside
from ponder.services.search.backends.local.formats import suffixes
from ponder.services.search.backends.local.library.entry import Entry

_SHOWN = 5  # entries a warning names; the rest are counted


@dataclass
class Located:
    """A library's attachments: those to read (each real path with its entry), and the
    entries' files that are missing, outside the bounds, or of a type ponder cannot read
    (each as ``(key, path as written)``)."""

    files: dict[str, Entry] = field(default_factory=dict)
    missing: list[tuple[str, str]] = field(default_factory=list)
    outside: list[tuple[str, str]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)

    def warnings(self, name: str, folder: str) -> list[str]:
        """One line for the missing files, one for those outside (``name``: the library)."""
        lines = []
        if self.missing:
            keys = list(dict.fromkeys(key for key, _ in self.missing))
            entries = "1 entry's file is" if len(keys) == 1 else f"{len(keys)} entries' files are"
            lines.append(
                f"{name}: {entries} missing: {_listed(self.missing)} — the rest of the library "
                "is searched."
            )
        if self.outside:
            count = len(self.outside)
            them = "1 attachment lies" if count == 1 else f"{count} attachments lie"
            lines.append(
                f"{name}: {them} outside the library's folder ({folder}) and the document "
                f"roots, not read: {_listed(self.outside)}."
            )
        return lines


def locate(
    entries: Sequence[Entry], folder: str, roots: Sequence[str] = (), hidden: bool = False
) -> Located:
    """The attachments of ``entries`` of a library in ``folder`` (absolute), each read only
    inside ``folder`` or a document root."""
    bounds = [folder, *roots]
    known = suffixes()
    found = Located()
    for entry in entries:
        for raw in entry.files:
            path = os.path.normpath(os.path.join(folder, os.path.expanduser(raw)))
            if not _inside(path, bounds, hidden):
                found.outside.append((entry.key, raw))
            elif not os.path.isfile(path):
                found.missing.append((entry.key, raw))
            elif os.path.splitext(path)[1].lower() not in known:
                found.unreadable.append((entry.key, raw))
            else:
                found.files.setdefault(os.path.realpath(path), entry)
    return found


def _inside(path: str, bounds: Sequence[str], hidden: bool) -> bool:
    if not hidden:
        return leads_inside(path, bounds)
    for bound in bounds:
        inside = os.path.relpath(path, os.path.normpath(bound)).split(os.sep)
        if inside[0] != "..":
            return True
    return False


def _listed(items: list[tuple[str, str]]) -> str:
    shown = ", ".join(f"{key} ({path})" for key, path in items[:_SHOWN])
    more = len(items) - _SHOWN
    return shown + (f", …and {more} more" if more > 0 else "")
