"""Web backends at their boundary: SearXNG over a local server, DuckDuckGo by patching ddgs,
plus fallback, hybrid merging and the search cache."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException
from support.edges import cache_dir, here

from ponder.services.search import make_search
from ponder.services.search.backends.duckduckgo import client as duckduckgo
from ponder.services.search.backends.duckduckgo.client import DuckDuckGoSearch
from ponder.services.search.backends.searxng.client import SearxngSearch
from ponder.services.search.base import SearchBackendError, SearchResult
from ponder.services.search.cached import CachedSearch
from ponder.services.search.fallback import FallbackSearch
from ponder.services.search.merge import HybridSearch, merge_by_rank
from ponder.services.storage.cache import Cache
from ponder.settings.configuration import Configuration

Reply = tuple[int, dict[str, Any] | str]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(duckduckgo, "DEFAULT_BACKOFF", 0.01)


class FakeSearxng:
    """A local HTTP server speaking SearXNG's JSON API; ``reply`` decides each answer."""

    def __init__(self) -> None:
        self.requests: list[dict[str, list[str]]] = []
        self.reply: Callable[[str], Reply] = lambda q: (200, searx_json(q, 3))
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                params = parse_qs(parts.query)
                fake.requests.append({"path": [parts.path], **params})
                status, body = fake.reply(params.get("q", [""])[0])
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def searx_json(query: str, count: int, unresponsive: list[Any] | None = None) -> dict[str, Any]:
    results = [
        {"title": f"{query} {i}", "url": f"https://example.org/{i}", "content": f"about {i}"}
        for i in range(count)
    ]
    return {"query": query, "results": results, "unresponsive_engines": unresponsive or []}


@pytest.fixture
def searx() -> Iterator[FakeSearxng]:
    server = FakeSearxng()
    yield server
    server.close()


def closed_port_url() -> str:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    server.server_close()
    return f"http://127.0.0.1:{port}"


# -- SearXNG -----------------------------------------------------------------------------


async def test_searxng_maps_json_results(searx: FakeSearxng) -> None:
    results = await SearxngSearch(searx.url).search("tidal power", 2)
    assert [r.url for r in results] == ["https://example.org/0", "https://example.org/1"]
    assert results[0].title == "tidal power 0" and results[0].snippet == "about 0"
    assert {r.backend for r in results} == {"searxng"} and {r.origin for r in results} == {"web"}
    assert searx.requests[0] == {"path": ["/search"], "q": ["tidal power"], "format": ["json"]}


async def test_searxng_no_results_is_empty(searx: FakeSearxng) -> None:
    searx.reply = lambda q: (200, searx_json(q, 0))
    assert await SearxngSearch(searx.url).search("nothing", 5) == []


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ((403, "Forbidden"), "json"),
        ((500, "oops"), "HTTP 500"),
        ((200, "<html>not json</html>"), "did not return JSON"),
        ((200, searx_json("q", 0, [["google", "timeout"], ["bing", "CAPTCHA"]])), "google"),
    ],
)
async def test_searxng_failures_raise(searx: FakeSearxng, reply: Reply, message: str) -> None:
    searx.reply = lambda q: reply
    with pytest.raises(SearchBackendError, match=message):
        await SearxngSearch(searx.url).search("q", 5)


async def test_searxng_unreachable_raises() -> None:
    with pytest.raises(SearchBackendError, match="unreachable"):
        await SearxngSearch(closed_port_url(), timeout=2).search("q", 5)


# -- DuckDuckGo --------------------------------------------------------------------------


def patch_ddgs(monkeypatch: pytest.MonkeyPatch, outcomes: list[Any]) -> list[str]:
    """Replace the real DDGS.text: each call takes the next outcome (raise or return)."""
    calls: list[str] = []

    def fake_text(self: Any, query: str, **kwargs: Any) -> list[dict[str, str]]:
        calls.append(query)
        outcome = outcomes[min(len(calls), len(outcomes)) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return list(outcome)

    monkeypatch.setattr("ddgs.ddgs.DDGS.text", fake_text)
    return calls


HITS = [
    {"title": "One", "href": "https://a.example/1", "body": "first"},
    {"title": "One again", "href": "https://a.example/1", "body": "duplicate"},
    {"title": "Two", "href": "https://a.example/2", "body": "second"},
]


async def test_duckduckgo_maps_results(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = patch_ddgs(monkeypatch, [HITS])
    results = await DuckDuckGoSearch().search("solar", 5)
    assert calls == ["solar"]
    assert [(r.title, r.url, r.snippet) for r in results] == [
        ("One", "https://a.example/1", "first"),
        ("Two", "https://a.example/2", "second"),
    ]
    assert all(r.backend == "duckduckgo" and r.origin == "web" for r in results)


async def test_duckduckgo_no_results_is_empty_without_retry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = patch_ddgs(monkeypatch, [DDGSException("No results found.")])
    warnings: list[str] = []
    assert await DuckDuckGoSearch(warn=warnings.append).search("zzz", 5) == []
    assert len(calls) == 1 and warnings == []


async def test_duckduckgo_retries_network_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = patch_ddgs(
        monkeypatch, [TimeoutException("timed out"), RatelimitException("202"), HITS]
    )
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    warnings: list[str] = []
    search = DuckDuckGoSearch(warn=warnings.append, backoff=1.0, sleep=fake_sleep)
    results = await search.search("solar", 5)
    assert len(results) == 2 and len(calls) == 3
    assert delays == [1.0, 2.0]  # exponential backoff
    assert len(warnings) == 2 and "retrying" in warnings[0]


async def test_duckduckgo_gives_up(monkeypatch: pytest.MonkeyPatch) -> None:
    error = DDGSException("ConnectError: network unreachable")
    calls = patch_ddgs(monkeypatch, [error])
    with pytest.raises(SearchBackendError, match="network unreachable"):
        await DuckDuckGoSearch(attempts=3, backoff=0.01).search("solar", 5)
    assert len(calls) == 3


async def test_duckduckgo_total_time_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = patch_ddgs(monkeypatch, [DDGSException("ConnectError")])
    search = DuckDuckGoSearch(attempts=10, backoff=5.0, total_timeout=1.0)
    with pytest.raises(SearchBackendError):
        await search.search("solar", 5)
    assert len(calls) == 1  # the next delay would cross the deadline


# -- fallback, hybrid, factory -------------------------------------------------------------


class Scripted:
    """A backend that returns fixed results or raises, counting calls."""

    def __init__(self, name: str, results: list[SearchResult] | Exception) -> None:
        self.name = name
        self.results = results
        self.calls = 0

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        self.calls += 1
        if isinstance(self.results, Exception):
            raise self.results
        return self.results[:max_results]


def hit(url: str, origin: str = "web") -> SearchResult:
    return SearchResult(title=url, url=url, snippet="s", origin=origin)


async def test_fallback_goes_to_the_next_backend_and_says_so() -> None:
    broken = Scripted("duckduckgo", SearchBackendError("rate limited"))
    spare = Scripted("searxng", [hit("https://b/1")])
    warnings: list[str] = []
    search = FallbackSearch([broken, spare], warnings.append)
    assert [r.url for r in await search.search("q", 3)] == ["https://b/1"]
    assert "duckduckgo" in warnings[0] and "searxng" in warnings[0]
    # The failed backend cools down: the next query goes straight to the spare.
    await search.search("q2", 3)
    assert broken.calls == 1 and spare.calls == 2


async def test_fallback_when_everything_fails() -> None:
    backends = [Scripted("a", SearchBackendError("x")), Scripted("b", SearchBackendError("y"))]
    with pytest.raises(SearchBackendError, match="Every search backend failed"):
        await FallbackSearch(backends, lambda _: None).search("q", 3)
    warnings: list[str] = []
    search = FallbackSearch(backends, warnings.append, empty_when_exhausted=True)
    assert await search.search("q", 3) == []
    assert "Every search backend failed" in warnings[-1]


async def test_fallback_does_not_hide_bugs() -> None:
    search = FallbackSearch([Scripted("a", KeyError("bug"))], lambda _: None)
    with pytest.raises(KeyError):
        await search.search("q", 3)


def test_merge_by_rank_interleaves_and_dedupes() -> None:
    local = [hit("/l1", "local"), hit("/l2", "local")]
    web = [hit("https://w1"), hit("https://w2"), hit("/l2", "local")]
    merged = merge_by_rank([local, web])
    assert [r.url for r in merged] == ["/l2", "/l1", "https://w1", "https://w2"]


async def test_hybrid_keeps_origins_and_survives_one_side() -> None:
    local = Scripted("local", [hit("/doc", "local")])
    web = Scripted("web", [hit("https://w1"), hit("https://w2")])
    results = await HybridSearch(local, web, warn=lambda _: None).search("q", 3)
    assert [(r.url, r.origin) for r in results] == [
        ("/doc", "local"),
        ("https://w1", "web"),
        ("https://w2", "web"),
    ]
    warnings: list[str] = []
    broken = Scripted("web", SearchBackendError("offline"))
    results = await HybridSearch(local, broken, warn=warnings.append).search("q", 3)
    assert [r.url for r in results] == ["/doc"] and "offline" in warnings[0]


async def test_make_search_falls_back_from_duckduckgo_to_searxng(
    searx: FakeSearxng, monkeypatch: pytest.MonkeyPatch, web_reachable: None
) -> None:
    patch_ddgs(monkeypatch, [DDGSException("ConnectError: offline")])
    warnings: list[str] = []
    config = Configuration(search="duckduckgo", searxng_url=searx.url, cache=False)
    results = await make_search(config, warnings.append, environment=here()).search("tides", 2)
    assert [r.backend for r in results] == ["searxng", "searxng"]
    assert any("falling back to 'searxng'" in w for w in warnings)


async def test_make_search_warns_and_returns_empty_when_all_fail(
    monkeypatch: pytest.MonkeyPatch,
    web_reachable: None,
) -> None:
    patch_ddgs(monkeypatch, [DDGSException("ConnectError: offline")])
    warnings: list[str] = []
    config = Configuration(search="duckduckgo", searxng_url=closed_port_url(), cache=False)
    assert await make_search(config, warnings.append, environment=here()).search("tides", 2) == []
    assert "Every search backend failed" in warnings[-1]


async def test_make_search_hybrid(
    searx: FakeSearxng, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, web_reachable: None
) -> None:
    patch_ddgs(monkeypatch, [HITS])
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("Spring tides follow the new moon.", encoding="utf-8")
    config = Configuration(search="hybrid", docs=[str(docs)], cache=False)
    results = await make_search(config, lambda _: None, environment=here()).search(
        "spring tides", 3
    )
    assert [r.origin for r in results] == ["local", "web", "web"]


# -- cache ---------------------------------------------------------------------------------


async def test_cache_hit_makes_no_request(searx: FakeSearxng, tmp_path: Path) -> None:
    cache = Cache(tmp_path / "c.sqlite")
    search = CachedSearch(SearxngSearch(searx.url), cache)
    first = await search.search("tides", 2)
    second = await search.search("tides", 2)
    assert first == second and len(searx.requests) == 1
    await search.search("other", 2)
    assert len(searx.requests) == 2


async def test_cache_through_make_search_and_disabled(searx: FakeSearxng) -> None:
    config = Configuration(search="searxng", searxng_url=searx.url)
    for _ in range(2):
        await make_search(config, lambda _: None, environment=here()).search("tides", 2)
    assert len(searx.requests) == 1  # a new run (new backend) still hits the disk cache
    no_cache = config.model_copy(update={"cache": False})
    for _ in range(2):
        await make_search(no_cache, lambda _: None, environment=here()).search("tides", 2)
    assert len(searx.requests) == 3


async def test_failures_are_not_cached(searx: FakeSearxng, tmp_path: Path) -> None:
    searx.reply = lambda q: (500, "down")
    search = CachedSearch(SearxngSearch(searx.url), Cache(tmp_path / "c.sqlite"))
    with pytest.raises(SearchBackendError):
        await search.search("tides", 2)
    searx.reply = lambda q: (200, searx_json(q, 1))
    assert len(await search.search("tides", 2)) == 1


def test_cache_entries_expire(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = Cache(tmp_path / "c.sqlite", ttl_seconds=60)
    cache.set("ns", "k", {"v": 1})
    assert cache.get("ns", "k") == {"v": 1}
    real_time = __import__("time").time
    monkeypatch.setattr("ponder.services.storage.cache.time.time", lambda: real_time() + 61)
    assert cache.get("ns", "k") is None
    assert cache.purge_expired() == 1


def test_unwritable_cache_degrades_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PONDER_CACHE_DIR", str(blocker / "cache"))
    warnings: list[str] = []
    cache = Cache(cache_dir() / "cache.sqlite", warn=warnings.append)
    cache.set("ns", "k", 1)
    assert cache.get("ns", "k") is None and not cache.enabled
    assert len(warnings) == 1 and "Cache disabled" in warnings[0]


def test_cache_disabled_by_config(tmp_path: Path) -> None:
    cache = Cache.from_config(Configuration(cache=False), cache_dir())
    cache.set("ns", "k", 1)
    assert cache.get("ns", "k") is None
    assert not (tmp_path / "cache" / "cache.sqlite").exists()


async def test_an_outage_seen_once_spares_later_searches_their_retries() -> None:
    from ponder.services.search.base import SearchBackendError
    from ponder.services.search.fallback import FallbackSearch

    calls: list[str] = []

    class Down:
        name = "down"

        async def search(self, query: str, max_results: int) -> list[Any]:
            calls.append(query)
            raise SearchBackendError("unreachable")

    class Up:
        name = "up"

        async def search(self, query: str, max_results: int) -> list[Any]:
            return []

    warnings: list[str] = []
    await FallbackSearch([Down(), Up()], warnings.append).search("first", 3)
    # A new wrapper (the next round, another researcher) skips the backend that just failed.
    await FallbackSearch([Down(), Up()], warnings.append).search("second", 3)
    assert calls == ["first"]
    assert any("falling back to 'up'" in w for w in warnings)


def test_the_offline_check_asks_the_proxy_the_environment_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ponder.services.search.reach import endpoint

    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                 "all_proxy", "NO_PROXY", "no_proxy"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    assert endpoint("https://html.duckduckgo.com/html/") == ("html.duckduckgo.com", 443)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp")  # its own scheme's port
    assert endpoint("https://html.duckduckgo.com/html/") == ("proxy.corp", 80)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp:bad")
    assert endpoint("https://html.duckduckgo.com/html/") is None
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv("ALL_PROXY", "socks5://gate:9050")
    assert endpoint("https://html.duckduckgo.com/html/") == ("gate", 9050)
    monkeypatch.setenv("NO_PROXY", "html.duckduckgo.com")
    assert endpoint("https://html.duckduckgo.com/html/") == ("html.duckduckgo.com", 443)


def test_auto_with_nothing_reachable_and_no_documents_is_an_offline_error() -> None:
    """A run resumed offline (no first check) meets the same clear error."""
    from ponder.core.errors import OfflineError
    from ponder.services.search.reach import Reach

    offline = Reach([], {"duckduckgo": "https://html.duckduckgo.com/html/: no name"})
    with pytest.raises(OfflineError, match="--docs"):
        make_search(Configuration(), print, environment=here(), reach=offline)
