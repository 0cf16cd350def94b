"""Receiving an upload: a multipart form read as it streams in, each file written straight
to disk under the user's limits, nothing held whole in memory.

python-multipart's push parser is fed the body a chunk at a time; its headers are bounded
by the parser itself. A file's name and type are checked as soon as its headers end, its
size and the collection's total with every chunk, and the first limit broken refuses the
whole upload: every file it wrote so far is removed, and nothing more of it is written.
Files arrive under hidden names (no index reads them half-written) and take their own
names only once the whole form has arrived.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from python_multipart.multipart import MultipartParser, parse_options_header

from ponder.interfaces.ui.collection import (
    ARCHIVE,
    INCOMING,
    Limits,
    Stored,
    UploadRefused,
    clean_name,
    free_name,
    size_text,
)

FIELD_BYTES = 1024  # a form field beside the files (the button's name): small or refused
FIELDS = 8
FORM_SLACK = 1024 * 1024  # the form's bytes beyond its files' own: headers, fields


def boundary_of(content_type: str) -> bytes:
    """The form's boundary, from its Content-Type (refused: not a multipart form)."""
    kind, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise UploadRefused(400, "Send the files as a form (multipart/form-data).")
    return boundary


def check_length(length: int, held: list[Stored], limits: Limits) -> None:
    """Refuse, before reading it, a body longer than all the room the collection has left."""
    room = limits.total_bytes - sum(stored.size for stored in held)
    if length > room + 64 * 1024:  # the form's own headers and boundaries, generously
        raise UploadRefused(413, _over_total(f"This upload is {size_text(length)};", limits))


class Receiver:
    """One upload's form, fed chunk by chunk (:meth:`feed`), then kept (:meth:`finish`)
    or dropped (:meth:`discard`). ``held``: the user's files before it; ``check``: what
    each whole file must pass before any is kept (a library must read as one)."""

    def __init__(
        self,
        boundary: bytes,
        folder: Path,
        held: list[Stored],
        limits: Limits,
        check: Callable[[Path, str], None] | None = None,
    ) -> None:
        self.folder, self.limits = folder, limits
        self.check = check  # a whole file's check (its path, its name): raises UploadRefused
        self.held_files = len(held)
        self.held_bytes = sum(stored.size for stored in held)
        self.received: list[tuple[Path, str]] = []  # (the incoming file, its name to be)
        self.size = 0  # of the file being received
        self.total = 0  # of every file in this upload
        self.fed = 0  # of the whole body, the form's own bytes and empty parts too
        self.fields = 0
        self._headers: dict[bytes, bytes] = {}
        self._name = b""
        self._value = b""
        self._file: Any = None  # the file being written, None between files
        self._field: bytearray | None = None  # a field being received
        callbacks: dict[str, Callable[..., None]] = {
            "on_part_begin": self._part_begin,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
        }
        self.parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]

    def feed(self, chunk: bytes) -> None:
        self.fed += len(chunk)
        # Files are counted as they arrive; this bounds what is no file (empty file inputs,
        # fields, the parts' headers), which a body without Content-Length could send forever.
        if self.fed > self.limits.total_bytes - self.held_bytes + FORM_SLACK:
            raise UploadRefused(413, _over_total("This upload does not fit:", self.limits))
        try:
            self.parser.write(chunk)
        except UploadRefused:
            raise
        except ValueError as exc:  # python-multipart's parse errors
            raise UploadRefused(400, f"The form could not be read ({exc}).") from None

    def finish(self) -> list[str]:
        """Keep the files under their own names (a name taken gets " (2)"…); their names."""
        self.feed(b"")
        if self._file is not None:
            raise UploadRefused(400, "The upload was cut off before it was whole.")
        if not self.received:
            raise UploadRefused(400, "Choose a file to upload.")
        if self.check is not None:
            for incoming, name in self.received:
                self.check(incoming, name)
        kept: list[str] = []
        for incoming, name in self.received:
            final = free_name(self.folder, name, set(kept))
            os.rename(incoming, self.folder / final)
            kept.append(final)
        self.received = []
        return kept

    def discard(self) -> None:
        """Remove whatever this upload wrote and did not keep."""
        if self._file is not None:
            self._file.close()
            self._file = None
        for incoming, _name in self.received:
            incoming.unlink(missing_ok=True)
        self.received = []

    # -- the parser's callbacks ------------------------------------------------------------

    def _part_begin(self) -> None:
        self._headers = {}

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._name += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._name.lower()] = self._value
        self._name = self._value = b""

    def _headers_finished(self) -> None:
        _kind, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        raw = options.get(b"filename")
        if raw is None:
            self.fields += 1
            if self.fields > FIELDS:
                raise UploadRefused(400, "The form has more fields than an upload needs.")
            self._field = bytearray()
            return
        self._field = None
        if not raw:
            return  # a file input left empty
        said = raw.decode("utf-8", errors="replace")
        name = clean_name(said)
        if not name:
            raise UploadRefused(400, f"{said!r} is no name a file can be kept under.")
        suffix = os.path.splitext(name)[1].lower()
        if suffix not in self.limits.suffixes:
            raise UploadRefused(415, self.limits.refused_kind(name))
        if self.held_files + len(self.received) + 1 > self.limits.files:
            raise UploadRefused(
                409,
                f"Your uploads hold {self.held_files} files; this server keeps up to "
                f"{self.limits.files} per person — delete some to make room for {name}.",
            )
        # Its suffix kept: a library is read as BibTeX or CSL JSON by it, before it is kept.
        incoming = self.folder / f"{INCOMING}{secrets.token_hex(8)}{suffix}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        self._file = os.fdopen(os.open(incoming, flags, 0o600), "wb")
        self.received.append((incoming, name))
        self.size = 0

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._field is not None:
            self._field += data[start:end]
            if len(self._field) > FIELD_BYTES:
                raise UploadRefused(400, "A field of the form is longer than an upload needs.")
            return
        if self._file is None:
            return  # an empty file input's (empty) part
        count = end - start
        self.size += count
        self.total += count
        name = self.received[-1][1]
        if self.size > self.limits.largest(name):
            limit = size_text(self.limits.largest(name))
            kind = "ZIM archives" if name.lower().endswith(ARCHIVE) else "files"
            raise UploadRefused(
                413, f"{name} is over {limit}; this server takes {kind} up to {limit}."
            )
        if self.held_bytes + self.total > self.limits.total_bytes:
            raise UploadRefused(413, _over_total(f"{name} does not fit:", self.limits))
        self._file.write(data[start:end])

    def _part_end(self) -> None:
        if self._file is None:
            return
        self._file.close()
        self._file = None
        if self.size == 0:
            raise UploadRefused(400, f"{self.received[-1][1]} is empty.")


def _over_total(start: str, limits: Limits) -> str:
    total = size_text(limits.total_bytes)
    return (
        f"{start} your uploads may hold {total} in all on this server — delete files you "
        "no longer need to make room."
    )


def clear_incoming(folder: Path) -> None:
    """Remove what an upload cut off earlier (the server stopped mid-way) left behind."""
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            if entry.name.startswith(INCOMING):
                Path(entry.path).unlink(missing_ok=True)
