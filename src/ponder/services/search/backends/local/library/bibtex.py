"""BibTeX exports (Zotero with Better BibTeX, JabRef, Mendeley) read into entries.

bibtexparser 2 (MIT) splits the file into blocks and keeps going past a malformed one,
which it hands back as failed: those are named in one line, the rest of the library is
used. Names and titles are LaTeX (``M{\\"u}ller``): pylatexenc, which ponder's LaTeX reader
already uses, turns them into text (``Müller``).

The ``file`` field says where an entry's attachments lie, in each manager's own way:
``Full Text PDF:files/smith2021.pdf:application/pdf`` (Zotero: description, path, type;
several separated by ``;``), ``:papers/doe.pdf:PDF`` (JabRef), ``:C\\:/papers/x.pdf:pdf``
(Mendeley, its colons escaped), or the path alone.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from typing import Any

from ponder.services.search.backends.local.library.entry import (
    MAX_AUTHORS,
    MAX_FIELD_CHARS,
    MAX_FILES,
    Entry,
    clean,
    date_of,
    doi_of,
    url_of,
)

_UNESCAPED = {"colon": re.compile(r"(?<!\\):"), "semicolon": re.compile(r"(?<!\\);")}
_ESCAPE = re.compile(r"\\([\\:;])")
_HEAD = re.compile(r"@\w+\s*[{(]\s*[^,\s]*")


class NotBibTeX(ValueError):
    """The file holds no BibTeX entry at all (the message says what it looks like)."""


def read_bibtex(text: str) -> tuple[list[Entry], list[str]]:
    """The entries of a BibTeX file, and what could not be read (one line per block)."""
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock

    splitter = logging.getLogger("bibtexparser")
    level = splitter.level
    splitter.setLevel(logging.ERROR)  # its warnings are ours to word, once, below
    try:
        library = bibtexparser.parse_string(text)
    finally:
        splitter.setLevel(level)
    entries = [entry_of(block.key, block.fields_dict) for block in library.entries]
    failures = []
    for block in library.failed_blocks:
        where = f"line {block.start_line + 1}" if block.start_line is not None else "a block"
        head = _HEAD.match(block.raw or "")
        where += f", {clean(head.group())[:80]}" if head else ""
        if isinstance(block, DuplicateBlockKeyBlock):
            failures.append(f"{where} (a second entry of that key)")
        else:
            reason = getattr(block.error, "abort_reason", None) or str(block.error)
            failures.append(f"{where} ({clean(reason)[:160] or 'not BibTeX'})")
    if not entries and not failures and "@" not in text and text.strip():
        raise NotBibTeX("it holds no BibTeX entry (no @article{…} or the like)")
    return entries, failures


def entry_of(key: str, fields: dict[str, Any]) -> Entry:
    """An entry from its fields (bibtexparser's, keyed in lower case or not)."""
    values = {name.lower(): field.value for name, field in fields.items()}

    def text(name: str) -> str:
        value = values.get(name)
        return latex_text(value) if isinstance(value, str) else ""

    files = [*file_paths(values.get("file")), *file_paths(values.get("pdf"))]
    return Entry(
        key=clean(key),
        title=text("title"),
        authors=names(values.get("author") or values.get("editor")),
        date=date_of(values.get("date"), values.get("year"), values.get("month")),
        doi=doi_of(values.get("doi")),
        url=url_of(values.get("url")),
        files=list(dict.fromkeys(files))[:MAX_FILES],
    )


def names(value: object) -> list[str]:
    """``M{\\"u}ller, J{\\"o}rg and Smith, Anne`` → ``["Jörg Müller", "Anne Smith"]``; a name
    in braces (``{World Health Organization}``) is kept whole."""
    from bibtexparser.middlewares.names import (
        InvalidNameError,
        parse_single_name_into_parts,
        split_multiple_persons_names,
    )

    if not isinstance(value, str):
        return []
    found = []
    for raw in split_multiple_persons_names(value[: MAX_FIELD_CHARS * 10])[:MAX_AUTHORS]:
        try:
            parts = parse_single_name_into_parts(raw, strict=False)
            words = [*parts.first, *parts.von, *parts.last]
            name = " ".join(words) + (f", {' '.join(parts.jr)}" if parts.jr else "")
        except InvalidNameError:
            name = raw
        if name := latex_text(name):
            found.append(name)
    return found


def file_paths(value: object) -> list[str]:
    """The paths a ``file`` field names, in the forms of Zotero, JabRef and Mendeley."""
    if not isinstance(value, str):
        return []
    paths = []
    for item in _UNESCAPED["semicolon"].split(value):
        parts = [_ESCAPE.sub(r"\1", part).strip() for part in _UNESCAPED["colon"].split(item)]
        if len(parts) >= 3:
            path = parts[1]  # description:path:type
        elif len(parts) == 2:  # path:type, or description:path
            path = parts[0] if parts[0] and not re.search(r"[./\\]", parts[1]) else parts[1]
        else:
            path = parts[0]
        if path:
            paths.append(path)
    return paths


def latex_text(latex: str) -> str:
    """LaTeX as text: accents decoded, braces gone, whitespace collapsed.

    What names and titles hold (``M{\\"u}ller``, ``\\'{E}cole``, ``\\&``, ``--``) is decoded
    here, in linear time; only what is left (math, other macros) goes to pylatexenc, about a
    millisecond a field, which would make a library of 50,000 entries take over a minute.
    What pylatexenc cannot parse keeps its letters, only the braces and backslashes dropped.
    """
    latex = latex[:MAX_FIELD_CHARS]
    text = _quick(latex)
    if not re.search(r"[\\$]", text):
        text = text.replace("{", "").replace("}", "").replace("~", " ")
        return clean(text.translate(_RESTORED))
    try:
        return clean(_converter().latex_to_text(latex))
    except (IndexError, KeyError, TypeError, ValueError):
        return clean(re.sub(r"[{}]|\\[a-zA-Z]+\s*|\\", "", text))


# Accent macros and the combining marks they stand for; letters LaTeX names by a macro.
_MARKS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323",
}  # fmt: skip
_LETTERS = {
    "i": "ı", "j": "ȷ", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
}  # fmt: skip
_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|[ijoOlL])(?![a-zA-Z])\s*(?:\{\})?")
_ACCENT = re.compile(
    r"\\(?:([\"'`^~=.])\s*|([uvHckrd])(?:\s+|(?=\{)))"  # the accent macro
    r"(?:\{\s*([a-zA-Z\u0131\u0237])\s*\}|([a-zA-Z\u0131\u0237]))"  # its letter
)
_ESCAPED = re.compile(r"\\([&%$#_{}])")


def _quick(text: str) -> str:
    """The accents, letters, escapes and dashes of ``text`` as Unicode (braces kept)."""
    if "\\" in text:
        text = _LETTER.sub(lambda m: _LETTERS[m.group(1)], text)
        text = _ACCENT.sub(_accented, text)
        text = _ESCAPED.sub(lambda m: _PROTECTED.get(m.group(1), m.group(1)), text)
    text = text.replace("---", "—").replace("--", "–")
    return unicodedata.normalize("NFC", text)


# Escaped braces and dollars stay what they are: kept apart from the markup until the end.
_PROTECTED = {"{": "\uff5b", "}": "\uff5d", "$": "\uff04"}
_RESTORED = str.maketrans({kept: char for char, kept in _PROTECTED.items()})


def _accented(match: re.Match[str]) -> str:
    mark = _MARKS[match.group(1) or match.group(2)]
    letter = match.group(3) or match.group(4)
    return unicodedata.normalize("NFC", {"ı": "i", "ȷ": "j"}.get(letter, letter) + mark)


@functools.cache
def _converter() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
