"""A user's own ZIM archives and reference libraries in `ponder ui`, and the operator's.

An uploaded ``.zim`` becomes one of the user's archives, an uploaded ``.bib`` (BibTeX) or
``.json`` (CSL JSON) their library, whose attachments are the files uploaded beside it:
the collection is one flat folder, and a library's files are read only inside its own
folder tree (or the operator's document folders, which a user may search anyway). Each is
checked as it arrives — an archive libzim cannot open, a ``.json`` that is no CSL JSON, a
``.bib`` with no entry is refused, with what it is and what is wanted — so what is kept
is what a run can search. Their runs get them as ``zim`` and ``library``, settings that
are otherwise the operator's alone (:func:`ponder.settings.callers.vet` takes them only
inside the user's own folder).

The Documents page says what each one holds: an archive's title, article count and
whether it has a full-text index; a library's entries and the attachments found.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ponder.api.archives import archive_status
from ponder.api.library import LIBRARY_SUFFIXES, libraries_status, not_a_library
from ponder.core.errors import PonderError
from ponder.interfaces.ui import collection
from ponder.interfaces.ui.access import User
from ponder.interfaces.ui.collection import ARCHIVE, Stored, UploadRefused
from ponder.settings.callers import document_roots, operator_configuration

_LIBRARY_FORMATS = {".bib": "BibTeX", ".json": "CSL JSON"}


def kind_of(name: str) -> str:
    """ "archive", "library" or "document": what an uploaded file is to a run."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix == ARCHIVE:
        return "archive"
    return "library" if suffix in LIBRARY_SUFFIXES else "document"


def own(user: User, kind: str) -> list[str]:
    """The paths of the user's uploads of this kind ("archive", "library")."""
    return [stored.path for stored in collection.files(user) if kind_of(stored.name) == kind]


def check_arrived(path: Path, name: str) -> None:
    """Refuse (415) an archive or a library that does not read as one; a document passes
    (indexing says what it could not read)."""
    kind = kind_of(name)
    if kind == "archive":
        try:
            archive_status(str(path))
        except PonderError as exc:
            said = str(exc).replace(path.name, name)
            raise UploadRefused(415, f"{said} — upload a .zim file from Kiwix.") from None
    elif kind == "library":
        suffix = os.path.splitext(name)[1].lower()
        problem = not_a_library(str(path), suffix)
        if problem is not None:
            raise UploadRefused(415, _not_a_library(name, suffix, problem))


def _not_a_library(name: str, suffix: str, problem: str) -> str:
    wanted = _LIBRARY_FORMATS[suffix]
    taken = (
        "ponder takes a .json only as a reference library (CSL JSON, as Zotero, Mendeley or "
        "pandoc export it)"
        if suffix == ".json"
        else "ponder takes a .bib as a reference library (BibTeX, as Zotero, JabRef or "
        "Mendeley export it)"
    )
    return f"{name} is not {wanted}: {problem}. {taken}."


def state_of(stored: Stored) -> str | None:
    """What an archive or a library of the user's holds, as the uploads table says it
    (None: a document, whose index state is said instead)."""
    kind = kind_of(stored.name)
    if kind == "archive":
        try:
            return f"ZIM archive: {archive_status(stored.path).said()}"
        except PonderError as exc:
            return f"ZIM archive, unreadable: {exc}"
    if kind == "library":
        operator = operator_configuration()  # attachments may lie in its folders, as in a run
        roots = [str(root) for root in document_roots(operator)]
        try:
            [status] = libraries_status([stored.path], roots, operator.docs_hidden_and_symlinks)
        except PonderError as exc:
            return f"library, unreadable: {exc}"
        return f"library: {_library_said(status.entries, status.attachments)}"
    return None


def _library_said(entries: int, attachments: int) -> str:
    listed = "1 entry" if entries == 1 else f"{entries} entries"
    found = "1 attachment" if attachments == 1 else f"{attachments} attachments"
    return f"{listed}, {found} found"


def operators(user: User) -> dict[str, Any]:
    """The operator's archives and libraries, each with what it holds (or why it cannot
    be read). A caller sees each by its file's name; the operator, by its path."""
    operator = operator_configuration()
    shown = (lambda path: path) if user.operator else os.path.basename

    archives = []
    for path in operator.zim:
        expanded = os.path.expanduser(path)
        try:
            said = archive_status(expanded).said()
        except PonderError as exc:  # it names the file: as this user may see it
            said = "cannot be read: " + str(exc).replace(expanded, shown(path))
            said = said if user.operator else "cannot be read (ponder doctor says why)"
        archives.append({"name": shown(path), "said": said})
    libraries = []
    for path in operator.library:
        try:
            [status] = libraries_status(
                [path], operator.docs_roots, operator.docs_hidden_and_symlinks
            )
            said = _library_said(status.entries, status.attachments)
            said += f"; {len(status.warnings)} warnings" if status.warnings else ""
        except PonderError:
            said = "cannot be read (ponder doctor says why)"
        libraries.append({"name": shown(path), "said": said})
    return {"archives": archives, "libraries": libraries}
