"""A user's own collection in `ponder ui`: the files they uploaded, which only they can
list, delete and search.

Each user's files lie in a folder of their own under the UI's data folder, named from the
user's name as the operator's token list gives it (never from a request) and a hash of it,
so no two users share one and no request can name another's. A file keeps the name the
browser sent, cleaned (:func:`clean_name`); a name already taken gets " (2)", " (3)"….

The limits are the operator's (``PONDER_UI_UPLOAD_FILE_MB``, ``PONDER_UI_UPLOAD_FILES``,
``PONDER_UI_UPLOAD_TOTAL_MB``; no files: uploads are off), and what may be uploaded is
what ponder reads: the suffixes its readers register, reference libraries (.bib, CSL
.json) and, when the operator allows them (``PONDER_UI_UPLOAD_ZIM_MB``), Kiwix ZIM
archives (:mod:`.references` makes them the user's own).
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ponder.api import documents
from ponder.api.archives import reads_archives
from ponder.api.library import LIBRARY_SUFFIXES
from ponder.core.errors import InvalidInputError
from ponder.interfaces.ui.access import User
from ponder.settings.callers import document_roots, operator_configuration
from ponder.settings.environment import machine
from ponder.settings.own_files import ARCHIVE_SUFFIX
from ponder.settings.paths import data_folder

MB = 1_000_000
UPLOADS = "uploads"
INCOMING = ".incoming-"  # a file still being received: hidden, so no index reads it
LONGEST_NAME = 150  # bytes of UTF-8, well under any file system's 255
ARCHIVE = ARCHIVE_SUFFIX  # the archives a person may upload, when the operator allows


class UploadRefused(InvalidInputError):
    """An upload (or a deletion) refused, with the HTTP status that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Limits:
    file_bytes: int
    files: int  # 0: uploads are off
    total_bytes: int
    suffixes: tuple[str, ...]  # every kind taken: documents, libraries, archives if allowed
    zim_bytes: int = 0  # the largest ZIM archive; 0: none is taken
    archives_read: bool = True  # libzim is installed

    def said(self) -> str:
        """The limits in a sentence, as the Documents page shows them."""
        archives = (
            f" (a ZIM archive up to {size_text(self.zim_bytes)})" if self.takes_archives else ""
        )
        return (
            f"Up to {size_text(self.file_bytes)} a file{archives}, {self.files} files and "
            f"{size_text(self.total_bytes)} in all."
        )

    @property
    def takes_archives(self) -> bool:
        return ARCHIVE in self.suffixes

    def largest(self, name: str) -> int:
        """The largest file of this name's kind."""
        return self.zim_bytes if name.lower().endswith(ARCHIVE) else self.file_bytes

    def refused_kind(self, name: str) -> str:
        """Why a file of this name is not taken."""
        if name.lower().endswith(ARCHIVE):
            if not self.archives_read:
                return (
                    f"{name} is a ZIM archive, and this server cannot read them (its operator "
                    "installs ponder[zim])."
                )
            return (
                f"{name} is a ZIM archive, and this server takes none (its operator allows "
                "them with PONDER_UI_UPLOAD_ZIM_MB)."
            )
        kinds = ", ".join(self.suffixes)
        return f"{name} is not a type ponder reads; this server takes {kinds}."


@dataclass(frozen=True)
class Stored:
    name: str
    path: str
    size: int


def limits() -> Limits:
    settings = machine()
    read = reads_archives()
    archives = (ARCHIVE,) if settings.ui_upload_zim_mb and read else ()
    return Limits(
        settings.ui_upload_file_mb * MB,
        settings.ui_upload_files,
        settings.ui_upload_total_mb * MB,
        tuple(sorted({*documents.readable_suffixes(), *LIBRARY_SUFFIXES, *archives})),
        settings.ui_upload_zim_mb * MB if archives else 0,
        read,
    )


def size_text(size: int) -> str:
    """A size as people say it: "61 MB", "1.5 MB", "15 KB" (decimal units)."""
    if size >= 10 * MB:
        return f"{size / MB:.0f} MB"
    if size >= MB:
        return f"{size / MB:.1f}".rstrip("0").rstrip(".") + " MB"
    return f"{max(1, round(size / 1000))} KB" if size else "0 KB"


def folder_of(user: User) -> Path:
    """The user's collection folder (it may not exist yet)."""
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", user.name)[:40]
    digest = hashlib.sha256(user.name.encode()).hexdigest()[:12]
    return data_folder(machine()).expanduser().resolve() / UPLOADS / f"{slug}-{digest}"


def unavailable() -> str | None:
    """Why uploads are off here, or None. They are off when the operator sets no files,
    and when the uploads folder and a document folder overlap: indexing that folder would
    give every user what one uploaded."""
    if limits().files == 0:
        return "Uploads are off on this server (its operator sets PONDER_UI_UPLOAD_FILES)."
    uploads = data_folder(machine()).expanduser().resolve() / UPLOADS
    for root in document_roots(operator_configuration()):
        if root == uploads or root in uploads.parents or uploads in root.parents:
            return (
                f"Uploads are off: the uploads folder {uploads} and the document folder "
                f"{root} overlap, so every user could search what one uploads — the "
                "operator sets PONDER_DATA_DIR outside the document folders."
            )
    return None


def clean_name(raw: str) -> str:
    """A file name as the browser sent it, made safe to keep: its last part only (a browser
    may send a path, with either slash), no control or format characters, runs of spaces as
    one, no leading dot or space (no hidden file, no ``..``) nor trailing ones, at most
    ``LONGEST_NAME`` bytes with its suffix kept. '' when nothing is left."""
    name = unicodedata.normalize("NFC", raw)
    name = re.split(r"[/\\]", name)[-1]
    name = " ".join(name.split())  # tabs and new lines too
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip(". ")
    if len(name.encode()) > LONGEST_NAME:
        stem, suffix = os.path.splitext(name)
        room = LONGEST_NAME - len(suffix.encode())
        stem = stem.encode()[:room].decode(errors="ignore").rstrip(". ")
        name = stem + suffix
    return name


def free_name(folder: Path, name: str, taken: set[str] | None = None) -> str:
    """``name``, or "name (2).ext"… when a file there (or one in ``taken``) has it."""
    stem, suffix = os.path.splitext(name)
    candidate, number = name, 1
    while (folder / candidate).exists() or candidate in (taken or set()):
        number += 1
        candidate = f"{stem} ({number}){suffix}"
    return candidate


def files(user: User) -> list[Stored]:
    """The user's files, by name: regular files only, none hidden (nor half-received)."""
    folder = folder_of(user)
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    kept = []
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
            continue
        kept.append(Stored(entry.name, entry.path, entry.stat(follow_symlinks=False).st_size))
    return sorted(kept, key=lambda stored: stored.name.lower())


def delete(user: User, name: str) -> None:
    """Delete one of the user's files (a name that is not one of theirs: refused, 404)."""
    mine = {stored.name: stored for stored in files(user)}
    if name not in mine:
        raise UploadRefused(404, "There is no such file in your uploads.")
    Path(mine[name].path).unlink(missing_ok=True)
