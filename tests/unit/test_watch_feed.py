"""A watch's Atom feed holds what RFC 4287 requires of a feed and of each entry, escapes what
documents and models wrote, and is read by a real feed reader (feedparser)."""

from __future__ import annotations

import feedparser
from lxml import etree

from ponder.services.watch.feed import Entry, atom

ATOM = "{http://www.w3.org/2005/Atom}"
HOSTILE = "A <script>alert(1)</script> & “quotes” ]]> finding"


def feed(address: str | None = "http://127.0.0.1:8765/feeds/w1/key.atom") -> bytes:
    entries = [
        Entry(1, 1_780_000_000.0, "Run 1: first run", "# Q\n\nRun 1: the first."),
        Entry(2, 1_780_086_400.0, "Run 2: 1 new finding", f"## New findings\n\n- {HOSTILE}"),
    ]
    return atom("w1", f"Question {HOSTILE}", 1_779_990_000.0, entries, address)


def test_the_feed_and_each_entry_hold_the_elements_atom_requires() -> None:
    root = etree.fromstring(feed())
    assert root.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated"):  # exactly one each (RFC 4287, 4.1.1)
        assert len(root.findall(f"{ATOM}{name}")) == 1, name
    assert root.find(f"{ATOM}author/{ATOM}name") is not None, "entries carry no author"
    self_links = [link for link in root.findall(f"{ATOM}link") if link.get("rel") == "self"]
    assert len(self_links) == 1
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 2
    ids = set()
    for entry in entries:
        for name in ("id", "title", "updated"):  # 4.1.2
            assert len(entry.findall(f"{ATOM}{name}")) == 1, name
        assert entry.find(f"{ATOM}content").get("type") == "html"
        ids.add(entry.findtext(f"{ATOM}id"))
        assert entry.findtext(f"{ATOM}id").startswith("tag:")  # an IRI that never changes
    assert len(ids) == 2
    assert root.findtext(f"{ATOM}updated") == entries[-1].findtext(f"{ATOM}updated")


def test_a_feed_reader_reads_it_and_nothing_written_by_others_becomes_markup() -> None:
    parsed = feedparser.parse(feed())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.feed.title.startswith("ponder watch: Question A <script>")
    assert "<h2>New findings</h2>" in parsed.entries[1].content[0].value
    # The entry's HTML as written (before any reader's own sanitising): the text is escaped.
    html = etree.fromstring(feed()).findall(f"{ATOM}entry")[1].findtext(f"{ATOM}content")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert not feedparser.parse(feed(address=None)).bozo, "a file feed has no self link"


def test_control_characters_in_what_others_wrote_do_not_break_the_feed() -> None:
    entries = [Entry(1, 1_780_000_000.0, "Run 1 failed", "Run 1 failed: bad\x08 \x1b[31mred\x00.")]
    parsed = feedparser.parse(atom("w1", "Question\x0c", 1_779_990_000.0, entries, None))
    assert not parsed.bozo and "bad red." in parsed.entries[0].content[0].value
