"""Pages and documents built to freeze, exhaust or hold a reader cannot (issue 31).

Each attack is served from 127.0.0.1 (``hostile_site``) at a size that showed its flaw in
seconds before the fix: a quadratic regex over unclosed <title> or <script> tags, gzip in
gzip, nesting past any parser's limit, a PDF whose content inflates past memory, a page
that trickles, a stream without end, silence after the headers, a redirect loop. Each is
read with a clear reason (or within the size limit) while the process stays free: parsing
runs in a worker process a deadline can stop (``ponder.services.text.sandbox``), and in a
served process another request is answered meanwhile.
"""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support import Site, UiServer, respond
from support.hostile_site import (
    gzip_bomb,
    hostile_settings,
    hostile_site,
    nested,
    pdf_bomb,
    pdf_of_many_pages,
    script_flood,
    title_flood,
)

from ponder import aresearch
from ponder.services.text import sandbox
from ponder.services.text.extraction import PDF_PAGES, TITLE_CHARS
from ponder.services.web.reader import Page, PageReader
from ponder.testing import Rig

FLOOD = 400_000  # a quadratic regex takes minutes on it; a linear parse milliseconds


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    served, _ = hostile_site()
    yield served
    served.close()


@pytest.fixture(scope="module")
def busy_site() -> Iterator[Site]:
    """The pages that keep a parser busy, without those that only wait out the deadline."""
    served, _ = hostile_site(slow=False)
    served.routes["/page/nested"] = respond(nested(20_000))  # parsed, in a second or two
    yield served
    served.close()


async def read(site: Site, path: str, **limits: float) -> Page:
    return await PageReader(allow_private=True, **limits).read(site.url + path)  # type: ignore[arg-type]


async def test_floods_of_unclosed_tags_are_read_in_linear_time(site: Site) -> None:
    site.routes["/flood/script"] = respond(script_flood(FLOOD))
    site.routes["/flood/title"] = respond(title_flood(FLOOD))
    scripts = await read(site, "/flood/script", parse_timeout=5)
    assert scripts.ok and "Harbour tides rise" in scripts.text, scripts.reason
    titles = await read(site, "/flood/title", parse_timeout=5)
    # All of it is one unclosed title: no text, and a title cut to a title's length.
    assert titles.reason == "no readable text", titles.reason
    assert titles.title is not None and len(titles.title) <= TITLE_CHARS


async def test_stacked_encodings_are_refused_and_one_layer_inflates_no_further_than_the_limit(
    site: Site,
) -> None:
    stacked = await read(site, "/page/gzip-bomb")
    assert stacked.reason is not None and "stacked content encodings" in stacked.reason
    from support.hostile_site import encoded

    site.routes["/bomb/one-layer"] = encoded(gzip_bomb(256 << 20, layers=1), "gzip")
    tracemalloc.start()
    try:
        page = await read(site, "/bomb/one-layer")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert page.truncated, "256 MB of zeros stop at the 3 MB limit"
    assert peak < 40 * 2**20, f"{peak / 2**20:.0f} MB held while reading it"


async def test_nesting_past_the_parsers_limit_is_stopped_by_the_deadline(site: Site) -> None:
    site.routes["/deep"] = respond(nested(100_000))  # lexbor needs ~15 s, lxml gives up
    started = time.monotonic()
    page = await read(site, "/deep", parse_timeout=2)
    assert page.reason == "took longer than 2s to parse"
    assert time.monotonic() - started < 6
    honest = await read(site, "/page/honest")  # the killed worker was replaced
    assert honest.ok and "Harbour tides" in honest.text


async def test_a_trickle_and_silence_after_the_headers_end_at_the_page_deadline(
    site: Site,
) -> None:
    started = time.monotonic()
    trickled = await read(site, "/page/trickle", total_timeout=3, read_timeout=10)
    silent = await read(site, "/page/silent", total_timeout=3, read_timeout=10)
    assert trickled.reason == silent.reason == "timed out after 3s"
    assert time.monotonic() - started < 9


async def test_an_endless_stream_stops_at_the_size_limit_and_a_redirect_loop_at_its(
    site: Site,
) -> None:
    endless = await read(site, "/page/endless", max_bytes=200_000)
    assert endless.ok and endless.truncated and len(endless.text) <= 200_000
    loop = await read(site, "/page/loop")
    assert loop.reason == "more than 5 redirects"


async def test_a_huge_page_on_one_line_is_read_within_the_limit(site: Site) -> None:
    page = await read(site, "/page/one-line")
    assert page.ok and 2_000_000 < len(page.text) <= 3_000_000


async def test_pdf_bombs_are_capped_or_refused(site: Site) -> None:
    site.routes["/pdf/pages"] = respond(pdf_of_many_pages(3 * PDF_PAGES), "application/pdf")
    many = await read(site, "/pdf/pages")
    assert many.ok and many.text.count("Harbour tides rise") == PDF_PAGES
    # Its content inflates past what a worker may map: the worker fails, not the process.
    site.routes["/pdf/bomb"] = respond(pdf_bomb(768 << 20), "application/pdf")
    bomb = await read(site, "/pdf/bomb")
    assert bomb.reason is not None and "memory" in bomb.reason, bomb.reason


def test_a_parse_that_needs_too_much_memory_fails_alone() -> None:
    with pytest.raises(sandbox.ParseFailed, match="more memory than a page may use"):
        sandbox.run(bytearray, 2 * sandbox.MEMORY_BYTES, deadline=10)
    with pytest.raises(sandbox.ParseFailed, match="crashed"):
        sandbox.run(os._exit, 3, deadline=10)
    assert sandbox.run(len, b"still here", deadline=10) == 10


def test_hostile_documents_are_skipped_with_their_reasons_and_the_rest_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ponder.services.search.backends.local import reading
    from ponder.services.search.backends.local.index import LocalIndex

    monkeypatch.setattr(reading, "READ_SECONDS", 3.0)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tides.md").write_text("# Tides\n\nHarbour tides rise twice a day.\n")
    (folder / "deep.html").write_text(nested(100_000))
    (folder / "flood.html").write_text(title_flood(FLOOD))
    (folder / "bomb.pdf").write_bytes(pdf_bomb(768 << 20))
    warnings: list[str] = []
    local = LocalIndex([folder], db_path=tmp_path / "index.sqlite")
    try:
        stats = local.index(warn=warnings.append)
    finally:
        local.close()
    said = "\n".join(warnings)
    assert "deep.html" in said and "took longer than 3s" in said, said
    assert "bomb.pdf" in said and "memory" in said, said
    assert stats.indexed == 2, "tides.md, and the flood (one long title, read in linear time)"


async def test_a_run_among_hostile_pages_cites_the_honest_one(rig: Rig, busy_site: Site) -> None:
    site = busy_site
    before = len(site.hits)
    report = await aresearch("How do harbour tides work?", **hostile_settings(rig, site))
    pages = [hit for hit in site.hits[before:] if hit.startswith("/page/") and hit != "/page/loop"]
    assert sorted(pages) == sorted(set(pages)), "each page is read once, whichever query found it"
    refused = "\n".join(w for w in report.stats.warnings if "Could not read" in w)
    for name in ("gzip-bomb", "loop"):
        assert f"/page/{name}:" in refused, (name, refused)
    cited = [s.url for s in report.sources if s.cited]
    assert site.url + "/page/honest" in cited
    assert not any(f"{url}:" in refused for url in cited), "a page not read is not cited"


def test_a_served_process_answers_while_a_run_reads_hostile_pages(
    rig: Rig, busy_site: Site, tmp_path: Path
) -> None:
    site = busy_site
    settings = hostile_settings(rig, site)
    env = {
        f"PONDER_{name.upper()}": str(value).lower() if isinstance(value, bool) else str(value)
        for name, value in settings.items()
        if name not in ("model", "ollama_base_url", "search")
    }
    env |= {
        "PONDER_MODEL": "scripted",
        "PONDER_OLLAMA_BASE_URL": rig.url,
        "PONDER_SEARCH": "searxng",
        "PONDER_DATA_DIR": str(tmp_path / "data"),
        "PONDER_CACHE_DIR": str(tmp_path / "cache"),
    }
    server = UiServer(env).start()
    try:
        started = httpx.post(server.url + "/runs", data={"topic": "Harbour tides"}, timeout=30)
        run = started.headers["location"]
        waits = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            asked = time.monotonic()
            log = httpx.get(f"{server.url}{run}/log", timeout=30).json()
            httpx.get(server.url + "/runs", timeout=30)
            if any(e["kind"] == "round_start" for e in log):  # reading pages from now on
                waits.append(time.monotonic() - asked)
            if log[-1]["kind"] == "status" and log[-1]["status"] != "running":
                break
            time.sleep(0.2)
        assert log[-1]["status"] == "done", log[-1]
        reading = [hit for hit in site.hits if hit.startswith("/page/")]
        assert len(reading) >= 9, "the run did read the hostile pages"
        assert max(waits) < 1.0, f"slowest answer {max(waits):.2f} s while the run read them"
    finally:
        server.stop()
