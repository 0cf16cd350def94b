"""Zip containers (DOCX, PPTX, XLSX, ODT, ODS, EPUB), read under hard limits.

A zip member says how large it inflates, and Python's ``zipfile`` inflates a deflated member
no further than that (a member that inflates past it fails its CRC check); members packed
any other way than stored or deflated — no office file is — are refused unread. So the
limits are checked on what the central directory declares, before a byte is inflated: how
many members there are, how large each member read may become and by what ratio it
inflates, and how much one file's members may inflate to in all. A file over any of them
is a zip bomb, or near enough, and is skipped saying so. Only the members a reader asks for
are inflated: the images and fonts beside the text are never read.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
import zlib
from urllib.parse import unquote
from xml.etree.ElementTree import Element

from ponder.services.search.backends.local.formats.document import SkipFile
from ponder.services.search.backends.local.formats.markup import parse_xml

MAX_MEMBERS = 10_000  # a book with every figure its own member stays far below
MAX_MEMBER_BYTES = 32 * 2**20  # one member inflated: a 300-page thesis's XML is ~10 MB
MAX_RATIO = 100  # inflation of a member over RATIO_FROM: XML packs 5-20 times
RATIO_FROM = 2**20
MAX_TOTAL_BYTES = 128 * 2**20  # every member one file's reader inflates
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)  # what DOCX, ODF and EPUB are packed with


class Zipped:
    """The members of one zip file, inflated on demand within the limits above."""

    def __init__(self, data: bytes, kind: str) -> None:
        self.kind = kind
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            raise SkipFile(f"not a readable {kind} file (a damaged zip: {exc})") from None
        if len(infos) > MAX_MEMBERS:
            raise SkipFile(
                f"a zip bomb? it holds {len(infos):,} members, more than {MAX_MEMBERS:,}"
            )
        self._infos = {info.filename: info for info in infos}
        self._inflated = 0

    def names(self) -> list[str]:
        return list(self._infos)

    def has(self, name: str) -> bool:
        return name in self._infos

    def read(self, name: str) -> bytes:
        """A member's bytes; SkipFile when it is missing, too large, a bomb or damaged."""
        info = self._infos.get(name)
        if info is None:
            raise SkipFile(f"not a readable {self.kind} file ({name} is missing)")
        if info.compress_type not in _METHODS:
            # zipfile bounds only deflate's output as it inflates: bzip2 and LZMA inflate a
            # whole block before the declared size is checked. No office file uses them.
            raise SkipFile(f"{name} is packed with a method these files never use (a zip bomb?)")
        size = info.file_size
        if size > RATIO_FROM and size > MAX_RATIO * max(info.compress_size, 1):
            ratio = size // max(info.compress_size, 1)
            raise SkipFile(f"a zip bomb: {name} would inflate {ratio:,} times, to {_mb(size)}")
        if size > MAX_MEMBER_BYTES:
            raise SkipFile(
                f"{name} would inflate to {_mb(size)}, more than the {_mb(MAX_MEMBER_BYTES)} "
                "a member may (a zip bomb?)"
            )
        if self._inflated + size > MAX_TOTAL_BYTES:
            raise SkipFile(
                f"its members would inflate to more than {_mb(MAX_TOTAL_BYTES)} (a zip bomb?)"
            )
        self._inflated += size
        try:
            with self._zip.open(info) as member:
                return member.read(size + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise SkipFile(f"not a readable {self.kind} file ({name}: {exc})") from None
        except (NotImplementedError, RuntimeError) as exc:  # a compression we lack, a password
            raise SkipFile(f"{name} cannot be read ({exc})") from None

    def xml(self, name: str) -> Element:
        """A member parsed as XML, entity declarations refused (:func:`.markup.parse_xml`)."""
        return parse_xml(self.read(name), name)

    def text(self, name: str) -> str:
        data = self.read(name)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return data.decode("latin-1")


def member_path(base: str, href: str) -> str:
    """A member named by ``href`` (relative, maybe %-encoded) from the member ``base``."""
    target = unquote(href.split("#", 1)[0])
    if not target.startswith("/"):
        target = posixpath.join(posixpath.dirname(base), target)
    return posixpath.normpath(target).lstrip("/")


def _mb(size: int) -> str:
    return f"{size / 2**30:.1f} GB" if size >= 2**30 else f"{size / 2**20:,.0f} MB"
