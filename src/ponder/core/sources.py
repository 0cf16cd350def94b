"""The source registry: stable numbers, deduplication by normalised URL or path."""

from __future__ import annotations

import os
from typing import (
    Any,
    NotRequired,  # pydantic (Studio schemas) needs it on 3.11
)
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from typing_extensions import TypedDict

_TRACKING = ("utm_", "fbclid", "gclid", "mc_", "ref_src")
MAX_PASSAGES = 6


class Source(TypedDict):
    """A source read during the run. ``number`` never changes once given."""

    number: int
    url: str
    title: str
    origin: str  # "web" or "local"
    passages: list[str]
    locations: list[str]
    authors: NotRequired[list[str]]  # as the document's own metadata names them
    date: NotRequired[str | None]  # ISO 8601
    link: NotRequired[str | None]  # a library paper's DOI (https://doi.org/…) or URL


def byline(source: Source) -> str:
    """ "Ada Lovelace, Charles Babbage (1843)": who wrote a source and when, as far as known."""
    authors = list(source.get("authors") or [])
    names = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")
    date = source.get("date") or ""
    return f"{names} ({date})" if names and date else names or (f"({date})" if date else "")


def source_key(url: str) -> str:
    """Normalise a URL or file path so the same source is recognised twice."""
    text = url.strip()
    if "://" not in text:
        path = os.path.expanduser(text)
        if not os.path.isabs(path):  # never a file of yours, and no os.getcwd() in a graph
            return "other:" + text
        return "file:" + os.path.normcase(os.path.normpath(path))
    parts = urlsplit(text)
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    query = urlencode(
        sorted((k, v) for k, v in parse_qsl(parts.query) if not k.lower().startswith(_TRACKING))
    )
    path = parts.path.rstrip("/") or ""
    scheme = "https" if parts.scheme in ("http", "https") else parts.scheme.lower()
    return urlunsplit((scheme, host + port, path, query, ""))


def merge_sources(existing: list[Source] | None, new: list[Source] | None) -> list[Source]:
    """Reducer: append unseen sources; for a known one, add passages it had not read."""
    merged: list[dict[str, Any]] = [dict(s) for s in existing or []]
    index = {source_key(s["url"]): i for i, s in enumerate(merged)}
    for source in new or []:
        key = source_key(source["url"])
        if key not in index:
            index[key] = len(merged)
            merged.append(dict(source))
            continue
        known = merged[index[key]]
        for passage, location in zip(source["passages"], _locations(source), strict=False):
            if passage not in known["passages"] and len(known["passages"]) < MAX_PASSAGES:
                known["passages"] = [*known["passages"], passage]
                known["locations"] = [*known.get("locations", []), location]
    return merged  # type: ignore[return-value]


def _locations(source: Source) -> list[str]:
    locations = list(source.get("locations") or [])
    return locations + [""] * (len(source["passages"]) - len(locations))


def next_number(sources: list[Source]) -> int:
    return max((s["number"] for s in sources), default=0) + 1


class Numbering:
    """The one place a run's sources get their numbers: a known source keeps its own, a
    new one the next free number (a round's results and the researchers' sources alike)."""

    def __init__(self, known: list[Source]) -> None:
        self._numbers = {source_key(s["url"]): s["number"] for s in known}
        self._next = next_number(known)

    def number(self, url: str) -> int:
        key = source_key(url)
        if key not in self._numbers:
            self._numbers[key] = self._next
            self._next += 1
        return self._numbers[key]


def by_number(sources: list[Source]) -> dict[int, Source]:
    return {s["number"]: s for s in sources}
