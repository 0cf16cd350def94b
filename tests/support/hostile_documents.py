"""Documents built to hurt a reader, made at run time: zip bombs in a DOCX and an EPUB, XML
that declares entities to expand, a notebook with a 100 MB output, a named pipe, a link
swapped in after discovery.

Each starts from a real document of its kind (written by pandoc, :mod:`ponder.testing.formats`)
and replaces one member, as an attacker would, so everything but the attack is well formed.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

GIGABYTE = 1 << 30
# The "billion laughs": nine entities each ten of the one before, 10**9 "lol"s in 1 KB.
LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol0 "lol">\n'
    + b"".join(b' <!ENTITY lol%d "%s">\n' % (n, b"&lol%d;" % (n - 1) * 10) for n in range(1, 10))
    + b"]>\n"
)


def replaced(original: Path, member: str, target: Path, data: bytes | None = None) -> Path:
    """``original`` with ``member`` replaced: by ``data``, or by a gigabyte of spaces that
    deflates to a megabyte (a zip bomb; writing it takes a few seconds)."""
    with zipfile.ZipFile(original) as source, zipfile.ZipFile(target, "w") as out:
        for info in source.infolist():
            if info.filename != member:
                out.writestr(info, source.read(info.filename))
        if data is not None:
            out.writestr(member, data, zipfile.ZIP_DEFLATED)
            return target
        entry = zipfile.ZipInfo(member)
        entry.compress_type = zipfile.ZIP_DEFLATED
        with out.open(entry, "w", force_zip64=True) as bomb:
            chunk = b" " * (1 << 20)
            for _ in range(GIGABYTE >> 20):
                bomb.write(chunk)
    return target


def entity_bomb(original: Path, member: str, target: Path, root: bytes) -> Path:
    """``original`` with ``member`` replaced by XML whose text is the billion laughs."""
    xml = LAUGHS + b"<%s>&lol9;</%s>" % (root, root.split(b" ")[0])
    return replaced(original, member, target, xml)


def huge_output_notebook(target: Path, output_bytes: int = 100 * (1 << 20)) -> Path:
    """A small notebook with one code cell whose output is ``output_bytes`` of text."""
    line = "tick " * 15 + "\n"
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# A long log"},
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 1,
                "source": "for i in range(10**7): print('tick ' * 15)",
                "outputs": [
                    {
                        "output_type": "stream",
                        "name": "stdout",
                        "text": line * (output_bytes // len(line)),
                    }
                ],
            },
        ],
    }
    target.write_text(json.dumps(notebook), encoding="utf-8")
    return target
