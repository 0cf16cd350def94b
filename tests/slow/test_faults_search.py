"""Search faults through full runs: every backend failing, flapping, slow, returning nothing,
returning duplicates and returning enormous snippets.

Web engines are fakes at their boundary: SearXNG is a local HTTP server speaking its JSON API,
DuckDuckGo is ``ddgs.ddgs.DDGS.text`` patched (and its engines take connections, as online:
the run's first check is not what these tests are about). Every run must produce a report,
record what went wrong as warnings, and keep every prompt inside the context window.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from ddgs.exceptions import DDGSException
from support import Site, respond

from ponder import aresearch
from ponder.nodes.web_research import PASSAGE_CHARS
from ponder.services.search import LocalIndex, SearchResult
from ponder.services.search.backends.duckduckgo import client as duckduckgo
from ponder.testing import Rig, ScriptedBackend

BEHAVIOURS = ("fail", "flap", "slow", "empty", "duplicates", "huge")
BACKENDS = ("local", "searxng", "duckduckgo", "hybrid")
DELAY = 0.4  # a slow engine answers after this
HANG = 4.0  # a hanging engine answers after this
HUGE = 200_000  # characters in an enormous snippet
NUM_CTX, NUM_PREDICT = 2048, 256


@pytest.fixture(autouse=True)
def _online(web_reachable: None) -> None:
    """DuckDuckGo's engines can be reached: what they answer is the fake's to say."""


class EngineDown(Exception):
    pass


class Engine:
    """A fake web search engine with one behaviour, shared by the SearXNG and DDG fakes."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.calls = 0
        self.answered = 0
        self._lock = threading.Lock()

    def answer(self, query: str) -> list[dict[str, str]]:
        with self._lock:
            self.calls += 1
            number = self.calls
        if self.behaviour == "fail" or (self.behaviour == "flap" and number % 2 == 1):
            raise EngineDown(f"engine down (call {number})")
        if self.behaviour == "dies":  # the first call fails, every later one hangs
            if number == 1:
                raise EngineDown("engine down")
            time.sleep(HANG)
        if self.behaviour == "slow":
            time.sleep(DELAY)
        with self._lock:
            self.answered += 1
        if self.behaviour == "empty":
            return []
        slug = "-".join(query.lower().split())[:40]
        if self.behaviour == "duplicates":  # the same three pages, again and again
            return [hit(f"https://dup.example/{i % 3}", "the Moon raises tides") for i in range(9)]
        text = "tides " * (HUGE // 6) if self.behaviour == "huge" else "the Moon raises tides"
        return [hit(f"https://web.example/{slug}/{i}", f"{query}: {text}") for i in range(3)]


def hit(url: str, body: str) -> dict[str, str]:
    return {"url": url, "title": url.rsplit("/", 2)[-2], "content": body}


def fake_searxng(engine: Engine) -> Site:
    """SearXNG's JSON API on 127.0.0.1; an engine failure is an HTTP 500."""

    def search(handler: BaseHTTPRequestHandler) -> None:
        query = parse_qs(urlsplit(handler.path).query).get("q", [""])[0]
        try:
            status, payload = 200, {"results": engine.answer(query)}
        except EngineDown as exc:
            status, payload = 500, {"error": str(exc)}
        respond(json.dumps(payload), "application/json", status)(handler)

    server = Site()
    server.routes["/search"] = search
    return server


@pytest.fixture
def searx_factory() -> Iterator[Any]:
    servers: list[Site] = []

    def make(engine: Engine) -> Site:
        servers.append(fake_searxng(engine))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def patch_ddgs(monkeypatch: pytest.MonkeyPatch, engine: Engine) -> None:
    def text(self: Any, query: str, **_kwargs: Any) -> list[dict[str, str]]:
        try:
            found = engine.answer(query)
        except EngineDown as exc:
            raise DDGSException(f"ConnectError: {exc}") from None
        return [{"href": h["url"], "title": h["title"], "body": h["content"]} for h in found]

    monkeypatch.setattr("ddgs.ddgs.DDGS.text", text)
    monkeypatch.setattr(duckduckgo, "DEFAULT_BACKOFF", 0.01)


def patch_local(monkeypatch: pytest.MonkeyPatch, behaviour: str) -> Engine:
    """Make the local index itself misbehave (it runs in a worker thread, like the real one)."""
    engine = Engine(behaviour)
    original = LocalIndex.search

    def search(self: LocalIndex, query: str, max_results: int, per_file: int = 2, **kw: Any) -> Any:
        with engine._lock:
            engine.calls += 1
            number = engine.calls
        if behaviour == "fail" or (behaviour == "flap" and number % 2 == 1):
            raise sqlite3.DatabaseError("database disk image is malformed")
        if behaviour == "slow":
            time.sleep(DELAY)
        engine.answered += 1
        if behaviour == "empty":
            return []
        found: list[SearchResult] = original(self, query, max_results, per_file, **kw)
        if behaviour == "duplicates":
            return (found * 4)[: max_results * 4]
        if behaviour == "huge":
            return [r.model_copy(update={"content": "tides " * (HUGE // 6)}) for r in found]
        return found

    monkeypatch.setattr(LocalIndex, "search", search)
    return engine


def fresh_reflection() -> Any:
    counter = itertools.count(1)
    return lambda _r: {
        "is_sufficient": False,
        "knowledge_gap": "more",
        "follow_up_queries": [f"tide question {next(counter)}"],
        "scope": "focused",
        "subtopics": [],
    }


def prompt_char_bound() -> float:
    """The prompt budget in characters: the window minus the answer, at ≤ 4 chars a token.

    The rig reports one token per four characters, so calibration never goes above four.
    """
    return (NUM_CTX - NUM_PREDICT - 64) * 4.0 + 100


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_search_fault_through_a_full_run(
    backend: str,
    behaviour: str,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
    searx_factory: Any,
) -> None:
    config: dict[str, Any] = {"search": backend, "cache": False}
    if backend == "local":
        engine = patch_local(monkeypatch, behaviour)
        config["docs"] = [str(corpus)]
    elif backend == "searxng":
        engine = Engine(behaviour)
        config["searxng_url"] = searx_factory(engine).url
        patch_ddgs(monkeypatch, Engine("fail"))  # its fallback fails fast and offline
    elif backend == "duckduckgo":
        engine = Engine(behaviour)
        patch_ddgs(monkeypatch, engine)
        config["searxng_url"] = searx_factory(Engine("fail")).url
    else:  # hybrid: the web misbehaves, local documents are fine
        engine = Engine(behaviour)
        patch_ddgs(monkeypatch, engine)
        config["searxng_url"] = searx_factory(engine).url
        config["docs"] = [str(corpus)]

    scripted = ScriptedBackend(overrides={"Reflection": fresh_reflection()})
    with Rig(scripted) as rig:
        report = await aresearch(
            "How do tides work?",
            model="scripted",
            ollama_base_url=rig.url,
            mode="loop",
            max_loops=2,
            num_ctx=NUM_CTX,
            num_predict=NUM_PREDICT,
            **config,
        )
        sizes = [e.prompt_chars for e in rig.chat_log()]

    warnings = report.stats.warnings
    assert report.markdown.startswith("# ")
    assert report.stats.rounds == 2
    assert engine.calls > 0, "the faulty backend was never asked"
    assert sizes and max(sizes) <= prompt_char_bound(), (max(sizes), prompt_char_bound())
    urls = [s.url for s in report.sources]
    assert len(urls) == len(set(urls)), "duplicate sources"
    web = [s for s in report.sources if s.origin == "web"]
    local = [s for s in report.sources if s.origin == "local"]
    hybrid = backend == "hybrid"

    if behaviour in ("fail", "empty"):
        assert not web
        if hybrid:  # the other half still answers; an empty web half is no failure
            assert local and "## Sources" in report.markdown
            if behaviour == "fail":
                assert any("using only part of its sources" in w for w in warnings), warnings
        else:
            expected = "failed" if behaviour == "fail" else "returned nothing"
            assert any(expected in w for w in warnings), warnings
            assert not report.sources and "No sources were found" in report.markdown
    elif behaviour == "flap":
        assert any("failed" in w or "retrying" in w for w in warnings), warnings
        assert engine.answered > 0 and report.sources
    elif behaviour == "slow":
        assert report.sources and report.stats.search_seconds >= DELAY
    elif behaviour == "duplicates":
        assert report.sources
        if backend in ("searxng", "duckduckgo"):
            assert sorted(urls) == [f"https://dup.example/{i}" for i in range(3)]
        if backend == "local":
            assert len(urls) <= 3  # the corpus has three files
    elif behaviour == "huge":
        assert report.sources
        for source in report.sources:
            assert sum(len(p) for p in source.passages) <= PASSAGE_CHARS + 200


def private_run(rig: Rig, corpus: Path, searx: Site, **extra: Any) -> Any:
    return aresearch(
        "How do tides work?",
        model="scripted",
        ollama_base_url=rig.url,
        mode="loop",
        max_loops=1,
        search="searxng",
        searxng_url=searx.url,
        docs=[str(corpus)],
        cache=False,
        **extra,
    )


@pytest.mark.parametrize("fallback", [False, True])
async def test_searxng_search_reaches_a_public_engine_only_with_fallback(
    fallback: bool, corpus: Path, monkeypatch: pytest.MonkeyPatch, searx_factory: Any
) -> None:
    public = Engine("ok")
    patch_ddgs(monkeypatch, public)
    searx = searx_factory(Engine("fail"))
    with Rig(ScriptedBackend()) as rig:
        report = await private_run(rig, corpus, searx, fallback=fallback)
    web = [s for s in report.sources if s.origin == "web"]
    if fallback:
        assert public.calls > 0 and web
    else:
        assert public.calls == 0, "a private search reached DuckDuckGo"
        assert not web and report.sources  # the local documents still answered
        assert any("falling back to 'local'" in w for w in report.stats.warnings)


async def test_a_backend_that_dies_costs_the_round_one_failure_not_one_per_query(
    corpus: Path, monkeypatch: pytest.MonkeyPatch, searx_factory: Any
) -> None:
    """SearXNG fails the first query at once and hangs on the others: they give up as soon
    as the first has failed, instead of each waiting for its own timeout."""
    engine = Engine("dies")
    patch_ddgs(monkeypatch, Engine("ok"))
    searx = searx_factory(engine)
    queries = {"rationale": "r", "queries": ["moon tides", "tide tables", "spring tides"]}
    with Rig(ScriptedBackend(overrides={"QueryPlan": queries})) as rig:
        started = time.perf_counter()
        report = await private_run(rig, corpus, searx, queries_per_round=4)
        seconds = time.perf_counter() - started
    assert engine.calls == 4 and report.stats.search_calls == 4
    assert seconds < HANG / 2, seconds  # nobody waited for a hanging request
    falling = [w for w in report.stats.warnings if "falling back to 'local'" in w]
    assert len(falling) == 1, report.stats.warnings  # one failure, said once
    assert report.sources and all(s.origin == "local" for s in report.sources)
