"""Finding and reading your documents: Markdown, text, reStructuredText, HTML and PDF.

Reading is separate from indexing so each stays small: this module turns files into plain
text (with page offsets for PDFs) or says, through ``SkipFile``, why a file cannot be read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ponder.services.text.extraction import html_title, page_text, pdf_pages

Warn = Callable[[str], None]

SUFFIXES = frozenset({".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf"})


def _ignore(_: str) -> None:
    return None


@dataclass
class Document:
    title: str
    text: str
    page_starts: list[int] = field(default_factory=list)


class SkipFile(Exception):
    """A file that cannot be indexed; the message says why."""


def discover(
    roots: Sequence[Path],
    warn: Warn = _ignore,
    *,
    hidden: bool = False,
    folders: Sequence[Path] | None = None,
) -> dict[str, tuple[int, int]]:
    """Every supported file under the roots, with (mtime_ns, size).

    Hidden entries below a root (a name starting with "."), and symlinks that lead out of
    their folder (``folders``, else the roots) or into a hidden entry, are skipped unless
    ``hidden`` (the operator's ``docs_hidden_and_symlinks``): a folder shared with callers
    often holds a ``.git`` or an editor's ``.env`` beside the documents, and a link to
    ``~/.ssh`` or ``/etc`` would serve what the operator never offered. A root the user
    names is read as named. Symlinked folders are not followed (a link loop would never
    end).
    """
    found: dict[str, tuple[int, int]] = {}
    bounds = [str(folder) for folder in folders or roots]
    for root in roots:
        if root.is_file():
            if root.suffix.lower() not in SUFFIXES:
                warn(f"Skipped {root}: unsupported file type (use {', '.join(sorted(SUFFIXES))}).")
            else:
                _add(found, str(root))
            continue
        if not root.is_dir():
            warn(f"Document path {root} does not exist.")
            continue
        for folder, dirs, names in os.walk(root):
            if not hidden:
                dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in names:
                if name.startswith(".") and not hidden:
                    continue
                if os.path.splitext(name)[1].lower() not in SUFFIXES:
                    continue
                path = os.path.join(folder, name)
                if hidden or not os.path.islink(path) or _leads_inside(path, bounds):
                    _add(found, path)
    return found


def _leads_inside(link: str, folders: list[str]) -> bool:
    """Whether a symlink's target lies in one of the folders, in no hidden entry there."""
    target = os.path.realpath(link)
    for folder in folders:
        inside = os.path.relpath(target, folder).split(os.sep)
        if inside[0] != ".." and not any(part.startswith(".") for part in inside):
            return True
    return False


def _add(found: dict[str, tuple[int, int]], path: str) -> None:
    try:
        info = os.stat(path)
    except OSError:
        return
    found[path] = (info.st_mtime_ns, info.st_size)


def read_document(path: Path, data: bytes) -> Document:
    """Extract a document's title and text; SkipFile when it cannot be read as text."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _read_pdf(path, data)
    if b"\x00" in data[:8192]:
        raise SkipFile("binary content")
    text = _decode(data, html=suffix in (".html", ".htm"))
    if suffix in (".html", ".htm"):
        return Document(html_title(text) or path.stem, page_text(text))
    return Document(_text_title(text, suffix) or path.stem, text)


def _read_pdf(path: Path, data: bytes) -> Document:
    try:
        pages = pdf_pages(data)
    except ValueError as exc:
        raise SkipFile(str(exc)) from None
    starts, parts, offset = [], [], 0
    for page in pages:
        starts.append(offset)
        parts.append(page)
        offset += len(page) + 2
    text = "\n\n".join(parts)
    if not text.strip():
        raise SkipFile("the PDF has no extractable text (scanned images?)")
    return Document(path.stem, text, starts)


def _decode(data: bytes, html: bool) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declared = re.search(rb"charset=[\"']?([\w-]+)", data[:4096]) if html else None
    if declared:
        try:
            return data.decode(declared.group(1).decode())
        except (LookupError, UnicodeDecodeError):
            pass
    raise SkipFile("not UTF-8 text")


def _text_title(text: str, suffix: str) -> str | None:
    lines = text.lstrip().splitlines()[:40]
    for i, line in enumerate(lines):
        if suffix in (".md", ".markdown") and line.startswith("# "):
            return line[2:].strip() or None
        underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
        is_heading = len(set(underline)) == 1 and underline[0] in "=-#*~^"
        if suffix == ".rst" and line.strip() and is_heading:
            return line.strip()
    return None
