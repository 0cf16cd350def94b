"""The page reader against a local server, the URL guard, and passage selection.

The test server listens on 127.0.0.1, so reads that should succeed use allow_private=True
and refusals use the default (private addresses refused).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import Site, make_pdf, redirect, respond, slow

from ponder.services.storage.cache import Cache
from ponder.services.text.passages import best_passages, chunk_text
from ponder.services.web import netguard
from ponder.services.web.netguard import (
    UnsafeURLError,
    check_url,
    forbidden_reason,
    parse_ip_literal,
)
from ponder.services.web.reader import PageReader

ARTICLE = (
    "<html><head><title>Otters</title></head><body><nav>Home | About | Login</nav>"
    "<article><h1>Sea otters</h1><p>Sea otters use rocks as tools to open shellfish, "
    "a behaviour passed from mothers to pups.</p><p>They hold hands while sleeping so they "
    "do not drift apart, and keep a favourite rock in a pouch of loose skin.</p></article>"
    "<footer>Copyright</footer></body></html>"
)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))
    server = Site()
    yield server
    server.close()


def trusted(**kwargs: Any) -> PageReader:
    return PageReader(allow_private=True, **kwargs)


# -- reading -------------------------------------------------------------------------------


async def test_reads_main_text_of_html(site: Site) -> None:
    site.routes["/otters"] = respond(ARTICLE)
    page = await trusted().read(f"{site.url}/otters")
    assert page.ok and page.title == "Otters"
    assert "rocks as tools" in page.text and "favourite rock" in page.text
    assert "Login" not in page.text and "Copyright" not in page.text


async def test_crude_strip_when_extractor_finds_nothing(site: Site) -> None:
    site.routes["/tiny"] = respond("<html><body><b>Hi</b> <script>x=1</script></body></html>")
    page = await trusted().read(f"{site.url}/tiny")
    assert page.ok and page.text == "Hi"


async def test_plain_text_and_pdf(site: Site) -> None:
    site.routes["/notes.txt"] = respond("line one\nline two", "text/plain")
    site.routes["/paper.pdf"] = respond(
        make_pdf(["Kelp forests shelter otters."]), "application/pdf"
    )
    text = await trusted().read(f"{site.url}/notes.txt")
    assert text.ok and text.text == "line one\nline two"
    pdf = await trusted().read(f"{site.url}/paper.pdf")
    assert pdf.ok and "Kelp forests" in pdf.text


async def test_other_types_are_refused_with_a_reason(site: Site) -> None:
    site.routes["/logo.png"] = respond(b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "image/png")
    site.routes["/gone"] = respond("no", status=410)
    page = await trusted().read(f"{site.url}/logo.png")
    assert not page.ok and page.reason == "unsupported content type 'image/png'"
    assert (await trusted().read(f"{site.url}/gone")).reason == "HTTP 410"


async def test_oversized_page_is_capped(site: Site) -> None:
    site.routes["/big"] = respond("word " * 2_000_000, "text/plain")  # 10 MB
    started = time.perf_counter()
    page = await trusted(max_bytes=50_000).read(f"{site.url}/big")
    assert page.ok and page.truncated and len(page.text) <= 50_000
    assert time.perf_counter() - started < 5


async def test_slow_page_times_out(site: Site) -> None:
    site.routes["/slow"] = slow(3, respond(ARTICLE))
    started = time.perf_counter()
    page = await trusted(read_timeout=0.3, total_timeout=0.5).read(f"{site.url}/slow")
    assert not page.ok and page.reason is not None and "timed out" in page.reason
    assert time.perf_counter() - started < 2


async def test_redirects_are_followed_and_bounded(site: Site) -> None:
    site.routes["/otters"] = respond(ARTICLE)
    site.routes["/old"] = redirect("/otters")
    site.routes["/loop"] = redirect("/loop")
    page = await trusted().read(f"{site.url}/old")
    assert page.ok and page.final_url == f"{site.url}/otters"
    looping = await trusted().read(f"{site.url}/loop")
    assert looping.reason == "more than 5 redirects" and site.hits.count("/loop") == 6


async def test_redirect_to_loopback_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A public page redirecting to 127.0.0.1 is stopped before the second request."""

    async def public(host: str, port: int | None) -> list[Any]:
        return [ipaddress.ip_address("93.184.216.34")]

    monkeypatch.setattr(netguard, "resolve", public)
    requested: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requested.append(str(request.url))
        return httpx.Response(302, headers={"Location": "http://127.0.0.1:9/admin"})

    reader = PageReader(transport=httpx.MockTransport(handler))
    page = await reader.read("http://news.example/story")
    assert requested == ["http://news.example/story"]
    assert page.reason is not None and "loopback" in page.reason


async def test_connections_go_to_the_address_that_was_checked(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader connects to the address it resolved itself, not to a second lookup."""
    site.routes["/"] = respond(ARTICLE)

    async def loopback(host: str, port: int | None) -> list[Any]:
        return [ipaddress.ip_address("127.0.0.1")]

    monkeypatch.setattr(netguard, "resolve", loopback)
    # `pinned.invalid` cannot be resolved by the system: only the checked address works.
    page = await trusted().read(f"http://pinned.invalid:{site.port}/")
    assert page.ok and site.hits == ["/"]


async def test_dns_rebinding_is_refused_at_connection_time(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name that is public when checked and loopback when connecting is not fetched."""
    site.routes["/"] = respond(ARTICLE)
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])

    async def rebinding(host: str, port: int | None) -> list[Any]:
        return [ipaddress.ip_address(a) for a in next(answers, ["127.0.0.1"])]

    monkeypatch.setattr(netguard, "resolve", rebinding)
    page = await PageReader().read(f"http://rebind.invalid:{site.port}/")
    assert not page.ok and page.reason is not None and "loopback" in page.reason
    assert site.hits == []


async def test_the_connection_goes_to_the_address_the_guard_resolved(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pin itself: a name no DNS knows is read because the reader's transport connects
    to the address the guard resolved. Without the pin, httpx would resolve the name again
    and fail; with private URLs refused, the same answer is refused before connecting."""
    site.routes["/"] = respond(ARTICLE)
    asked: list[str] = []

    async def pinned(host: str, port: int | None) -> list[Any]:
        asked.append(host)
        return [ipaddress.ip_address("127.0.0.1")]

    monkeypatch.setattr(netguard, "resolve", pinned)
    page = await trusted().read(f"http://pinned.invalid:{site.port}/")
    assert page.ok, page.reason
    assert site.hits == ["/"] and asked == ["pinned.invalid"]
    refused = await PageReader().read(f"http://pinned.invalid:{site.port}/")
    assert not refused.ok and refused.reason is not None and "loopback" in refused.reason
    assert site.hits == ["/"]


async def test_private_server_refused_unless_allowed(site: Site) -> None:
    site.routes["/otters"] = respond(ARTICLE)
    refused = await PageReader().read(f"{site.url}/otters")
    assert refused.reason is not None and refused.reason.startswith("refused")
    assert site.hits == []
    assert (await trusted().read(f"{site.url}/otters")).ok


async def test_hostile_urls_are_never_fetched(site: Site) -> None:
    port = site.port
    hostile = [
        f"http://127.0.0.1:{port}/",
        f"http://localhost:{port}/",
        f"http://LOCALHOST.:{port}/",
        f"http://app.localhost:{port}/",
        f"http://2130706433:{port}/",
        f"http://0x7f000001:{port}/",
        f"http://0177.0.0.1:{port}/",
        f"http://127.1:{port}/",
        f"http://0x7f.0.0.1:{port}/",
        f"http://[::1]:{port}/",
        f"http://[::ffff:127.0.0.1]:{port}/",
        f"http://[::ffff:7f00:1]:{port}/",
        f"http://0.0.0.0:{port}/",
        f"http://0:{port}/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://172.16.5.4/",
        "http://100.64.0.1/",
        "http://[fe80::1]/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://[2002:7f00:1::]/",
        "file:///etc/passwd",
        "ftp://example.com/file",
        "gopher://127.0.0.1:70/",
        "http:///nohost",
        "http://99999999999/",
    ]
    reader = PageReader(connect_timeout=0.2, total_timeout=1)
    pages = await reader.read_many(hostile)
    assert site.hits == []
    for url, page in zip(hostile, pages, strict=True):
        assert page.reason is not None and page.reason.startswith("refused"), (url, page.reason)


async def test_concurrency_is_limited(site: Site) -> None:
    for i in range(6):
        site.routes[f"/p{i}"] = slow(0.2, respond(ARTICLE))
    pages = await trusted(concurrency=2).read_many(f"{site.url}/p{i}" for i in range(6))
    assert all(p.ok for p in pages) and site.peak == 2


async def test_pages_are_cached(site: Site, tmp_path: Path) -> None:
    site.routes["/otters"] = respond(ARTICLE)
    cache = Cache(tmp_path / "pages.sqlite")
    first = await trusted(cache=cache).read(f"{site.url}/otters")
    second = await trusted(cache=cache).read(f"{site.url}/otters")
    assert first.ok and second.from_cache and second.text == first.text
    assert site.hits == ["/otters"]
    # A page read while private URLs were allowed is not served to a guarded reader.
    refused = await PageReader(cache=cache).read(f"{site.url}/otters")
    assert not refused.ok


# -- the URL guard ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("[::1]", "::1"),
        ("8.8.8.8", "8.8.8.8"),
        ("example.com", None),
        ("cafe.example", None),
    ],
)
def test_ip_literals_in_every_form(host: str, address: str | None) -> None:
    parsed = parse_ip_literal(host)
    assert (str(parsed) if parsed else None) == address


def test_forbidden_reasons() -> None:
    def reason(text: str) -> str | None:
        return forbidden_reason(ipaddress.ip_address(text))

    assert reason("8.8.8.8") is None and reason("2606:4700:4700::1111") is None
    assert "metadata" in (reason("169.254.169.254") or "")
    assert "loopback" in (reason("::ffff:127.0.0.1") or "")
    assert "unspecified" in (reason("0.0.0.0") or "")
    assert "multicast" in (reason("ff02::1") or "")
    assert "private" in (reason("192.168.0.10") or "")
    # Deprecated site-local IPv6: Python 3.11's is_global calls it public; it is not.
    assert "site-local" in (reason("fec0::1") or "")
    assert "site-local" in (reason("feff:ffff::1") or "")


async def test_check_url_resolves_names(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {"good.example": "93.184.216.34", "evil.example": "10.0.0.7"}

    async def fake(host: str, port: int | None) -> list[Any]:
        if host not in answers:
            raise UnsafeURLError(f"cannot resolve host '{host}'")
        return [ipaddress.ip_address(answers[host])]

    monkeypatch.setattr(netguard, "resolve", fake)
    await check_url("https://good.example/a")
    with pytest.raises(UnsafeURLError, match=r"private address 10\.0\.0\.7"):
        await check_url("https://evil.example/")
    with pytest.raises(UnsafeURLError, match="cannot resolve"):
        await check_url("https://nowhere.example/")
    await check_url("http://10.0.0.7/", allow_private=True)
    with pytest.raises(UnsafeURLError, match="scheme"):
        await check_url("file:///etc/passwd", allow_private=True)


# -- passages ----------------------------------------------------------------------------------


def test_best_passages_choose_relevant_text_in_order() -> None:
    filler = [f"Paragraph {i} is about gardening, soil and compost heaps." * 4 for i in range(30)]
    filler[7] = "Sea otters crack shellfish with rocks while floating on their backs. " * 3
    filler[21] = "Otters have the densest fur of any animal, about a million hairs. " * 3
    text = "\n\n".join(filler)
    chosen = best_passages(text, "sea otters fur", 700)
    assert sum(len(p) for p in chosen) <= 700
    joined = " ".join(chosen)
    assert "crack shellfish" in joined and "densest fur" in joined
    assert joined.index("crack shellfish") < joined.index("densest fur")  # document order


def test_best_passages_cover_the_words_the_best_one_lacks() -> None:
    """Two passages fit the budget: the best about writing, and then not its near repeat
    but the one about reading, which the question also asks."""
    filler = [f"Paragraph {i} is about gardening, soil and compost heaps." * 4 for i in range(30)]
    filler[3] = "To write a JSON file, dump the object to a file opened for writing JSON text. " * 2
    filler[9] = "Write JSON to a file with dump: the JSON file must be opened to write text. " * 2
    filler[20] = (
        "Reading it back is one call: load the JSON. Gardening, soil and compost heaps. " * 2
    )
    chosen = best_passages("\n\n".join(filler), "read and write JSON files", 340)
    assert len(chosen) == 2 and chosen[1].startswith("Reading it back"), chosen


def test_best_passages_edge_cases() -> None:
    assert best_passages("short text", "anything", 100) == ["short text"]
    assert best_passages("", "q", 100) == [] and best_passages("text", "q", 0) == []
    text = "\n\n".join(f"Alpha beta gamma number {i}. " * 10 for i in range(10))
    first = best_passages(text, "zzz unmatched", 400)
    assert first and text.startswith(first[0])


def test_chunks_respect_limits_and_offsets() -> None:
    text = "\n\n".join(("word " * n).strip() for n in (10, 300, 50, 700, 5))
    spans = chunk_text(text)
    assert all(0 < end - start <= 1200 for start, end in spans)
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)
    covered = "".join(text[s:e] for s, e in spans).replace(" ", "").replace("\n", "")
    assert covered == text.replace(" ", "").replace("\n", "")
