"""Org mode files (Emacs): headings and text, links as their descriptions, tables as rows;
``#+TITLE``, ``#+AUTHOR`` and ``#+DATE`` as the title, authors and date.

A small reader of the documented syntax (orgmode.org's manual): it keeps what a reader of
the file sees and drops Org's machinery, in one pass of linear patterns over the lines.
"""

from __future__ import annotations

import re

from ponder.services.search.backends.local.formats.document import Document, SkipFile, clean_title
from ponder.services.search.backends.local.formats.markup import iso_date
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.text import decoded

_KEYWORD = re.compile(r"^\s*#\+(\w+):\s?(.*)$")
_BLOCK_LINE = re.compile(r"^\s*#\+(begin|end)_\w+", re.IGNORECASE)
_COMMENT = re.compile(r"^\s*#(\s|$)")
_STATES = frozenset(("TODO", "DONE", "NEXT", "WAITING"))
_TAGS = re.compile(r":[\w@:]+:")
# No "[" inside: a line of brackets is then scanned once, not once per bracket.
_LINK = re.compile(r"\[\[([^\[\]\n]*)\](?:\[([^\[\]\n]*)\])?\]")
_TARGET = re.compile(r"<<<?[^<>\n]*>>>?")
_RULE_CHARS = frozenset("-+| \t")


def read_org(data: bytes, name: str) -> Document:
    lines: list[str] = []
    meta: dict[str, str] = {}
    drawer = False
    for line in decoded(data).splitlines():
        keyword = _KEYWORD.match(line)
        if keyword and not _BLOCK_LINE.match(line):
            meta.setdefault(keyword.group(1).lower(), keyword.group(2).strip())
            continue
        stripped = line.strip()
        if drawer:
            drawer = stripped.upper() != ":END:"
            continue
        if re.fullmatch(r":[A-Z_]+:", stripped.upper()) and stripped.upper() != ":END:":
            drawer = True  # :PROPERTIES: … :END: and :LOGBOOK: … :END:
            continue
        rule = stripped.startswith("|") and set(stripped) <= _RULE_CHARS
        if _BLOCK_LINE.match(line) or _COMMENT.match(line) or rule:
            continue
        if line.startswith("*") and line.lstrip("*")[:1] in (" ", "\t"):
            line = "\n" + _heading(line) + "\n"
        line = _LINK.sub(lambda m: m.group(2) or m.group(1), line)
        lines.append(_TARGET.sub("", line))
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not text:
        raise SkipFile("the Org file has no text")
    authors = [a.strip() for a in re.split(r"[,;]| and ", meta.get("author", "")) if a.strip()]
    return Document(
        clean_title(meta.get("title")) or name,
        text,
        authors=[clean_title(a) for a in authors][:20],
        date=iso_date(re.sub(r"^[<\[]", "", meta.get("date", ""))),
    )


def _heading(line: str) -> str:
    """A heading's text, without its stars, state keyword, priority and tags."""
    words = line.lstrip("*").split()
    if words and words[0] in _STATES:
        words = words[1:]
    if words and re.fullmatch(r"\[#[A-Z]\]", words[0]):
        words = words[1:]
    if words and _TAGS.fullmatch(words[-1]):
        words = words[:-1]
    return " ".join(words)


register(
    Reader(
        "Org",
        (".org",),
        read_org,
        library="ponder's own reader of the documented syntax (orgparse gives a heading "
        "tree, not the text a reader sees)",
        keeps="headings and text, lists, tables' rows, blocks' content, links as their "
        "descriptions; title, author(s) and date from the #+ keywords",
        drops="drawers (:PROPERTIES:), comments, #+ settings, TODO keywords, tags",
    )
)
