"""Decoding a text file's bytes: UTF-8 (with or without its BOM), or the charset an HTML
page declares; anything else is not a text this index can read."""

from __future__ import annotations

import re

from ponder.services.search.backends.local.formats.document import SkipFile

_CHARSET = re.compile(rb"charset=[\"']?([\w-]+)")


def decoded(data: bytes, *, declared: bool = False) -> str:
    """``data`` as text; ``declared``: an HTML page, whose ``charset=`` is honoured."""
    if b"\x00" in data[:8192]:
        raise SkipFile("binary content")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    found = _CHARSET.search(data[:4096]) if declared else None
    if found:
        try:
            return data.decode(found.group(1).decode())
        except (LookupError, UnicodeDecodeError):
            pass
    raise SkipFile("not UTF-8 text")


def heading_title(text: str, marker: str = "# ") -> str | None:
    """The first line starting with ``marker`` among the first 40 (a Markdown title)."""
    for line in text.lstrip().splitlines()[:40]:
        if line.startswith(marker):
            return line[len(marker) :].strip() or None
    return None
