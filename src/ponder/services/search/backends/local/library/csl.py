"""CSL JSON exports (Zotero, Mendeley, pandoc's citeproc) read into entries.

CSL JSON is a list of items: ``id``, ``title``, ``author`` as ``[{"family", "given"}]``
(or ``{"literal"}``), ``issued`` as ``{"date-parts": [[2021, 3]]}``, ``DOI``, ``URL``. The
format has no field for attachments; exports that carry them use ``file`` (a path, several
separated by ``;`` as in BibTeX, or a list) or ``attachments`` (Better BibTeX's
``[{"path": ...}]``).
"""

from __future__ import annotations

import json
from typing import Any

from ponder.services.search.backends.local.library.bibtex import file_paths
from ponder.services.search.backends.local.library.entry import (
    MAX_AUTHORS,
    MAX_FILES,
    Entry,
    clean,
    date_of,
    doi_of,
    iso_date,
    url_of,
)


class NotCslJson(ValueError):
    """The file is no CSL JSON (the message says why)."""


def read_csl_json(text: str) -> tuple[list[Entry], list[str]]:
    """The entries of a CSL JSON file, and the items that are no entry (one line each)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotCslJson(f"it is not JSON ({exc.msg} at line {exc.lineno})") from None
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]
    if not isinstance(data, list):
        raise NotCslJson("CSL JSON is a list of items, and this file holds no list")
    entries, failures = [], []
    for number, item in enumerate(data, start=1):
        if isinstance(item, dict):
            entries.append(entry_of(item, number))
        else:
            failures.append(f"item {number} (a {type(item).__name__}, not an object)")
    return entries, failures


def entry_of(item: dict[str, Any], number: int) -> Entry:
    files = [*_paths(item.get("file")), *_paths(item.get("attachments"))]
    return Entry(
        key=clean(item.get("id")) or clean(item.get("citation-key")) or f"item {number}",
        title=clean(item.get("title")),
        authors=_names(item.get("author")) or _names(item.get("editor")),
        date=_issued(item.get("issued")),
        doi=doi_of(item.get("DOI") or item.get("doi")),
        url=url_of(item.get("URL") or item.get("url")),
        files=list(dict.fromkeys(files))[:MAX_FILES],
    )


def _names(value: object) -> list[str]:
    """CSL names as people write them: given, particles, family, suffix; or the literal."""
    if not isinstance(value, list):
        return []
    found = []
    for person in value[:MAX_AUTHORS]:
        if not isinstance(person, dict):
            continue
        if literal := clean(person.get("literal")):
            found.append(literal)
            continue
        keys = ("given", "dropping-particle", "non-dropping-particle", "family")
        name = " ".join(part for key in keys if (part := clean(person.get(key))))
        if suffix := clean(person.get("suffix")):
            name += f", {suffix}"
        if name:
            found.append(name)
    return found


def _issued(value: object) -> str | None:
    """``{"date-parts": [[2021, 3]]}`` → ``2021-03``; else its ``raw`` or ``literal``."""
    if not isinstance(value, dict):
        return date_of(value) if isinstance(value, str) else None
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list):
        return iso_date(parts[0])
    text = value.get("raw") or value.get("literal")
    return date_of(text) or date_of(year=text)


def _paths(value: object) -> list[str]:
    if isinstance(value, str):
        return file_paths(value)
    if not isinstance(value, list):
        return []
    paths = []
    for item in value:
        path = item.get("path") if isinstance(item, dict) else item
        if isinstance(path, str) and path.strip():
            paths.append(path.strip())
    return paths
