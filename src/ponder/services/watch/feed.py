"""A watch's Atom feed: one entry per run, its change report as the entry's content, so any
feed reader or script follows a watched question offline.

Written by feedgen (BSD-2-Clause of its two licences, over lxml, which ponder already
uses): it writes the elements RFC 4287 requires and escapes what it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from feedgen.feed import FeedGenerator
from markdown_it import MarkdownIt

from ponder.core.untrusted import printable

LATEST = 50  # entries a feed keeps: the newest runs


@dataclass(frozen=True)
class Entry:
    number: int
    at: float  # when the run ended (or started, for one that did not)
    title: str
    markdown: str


def atom(
    watch_id: str, question: str, created: float, entries: list[Entry], address: str | None
) -> bytes:
    """The feed of a watch; ``address``: where it is served (its ``self`` link), if it is."""
    feed = FeedGenerator()
    feed.id(_tag(watch_id, created))
    feed.title(printable(f"ponder watch: {question}"))
    feed.subtitle("What changed, run after run, in the sources of a watched question.")
    feed.author({"name": "ponder"})
    feed.generator("ponder")
    if address:
        feed.link(href=address, rel="self", type="application/atom+xml")
    kept = sorted(entries, key=lambda entry: entry.number)[-LATEST:]
    feed.updated(_when(max((entry.at for entry in kept), default=created)))
    html = MarkdownIt("commonmark", {"html": False})
    for entry in kept:
        item = feed.add_entry(order="append")
        item.id(f"{_tag(watch_id, created)}/run/{entry.number}")
        # Control characters (a document's, a model's) are no XML: taken out.
        item.title(printable(entry.title))
        item.updated(_when(entry.at))
        item.content(html.render(printable(entry.markdown)), type="html")
    data: bytes = feed.atom_str(pretty=True)
    return data


def _tag(watch_id: str, created: float) -> str:
    """The feed's permanent id, a tag URI (RFC 4151): the watch's own, never an address."""
    day = datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%d")
    return f"tag:ponder.invalid,{day}:watch/{watch_id}"


def _when(at: float) -> datetime:
    return datetime.fromtimestamp(at, UTC)
