"""Wikipedia and arXiv at their boundary: local servers speaking the Action API and the Atom
query API (tests/support/public_apis.py), with their error shapes, their rules (a User-Agent,
maxlag, one arXiv request every three seconds), caching, and runs that cite them."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.edges import here
from support.public_apis import FakeApi, arxiv, mediawiki

from ponder import aresearch
from ponder.services.search import make_search, public_api
from ponder.services.search.backends.arxiv import client as arxiv_module
from ponder.services.search.backends.arxiv.client import ArxivSearch, search_query
from ponder.services.search.backends.wikipedia.client import (
    WikipediaSearch,
    best_sections,
    sections,
)
from ponder.services.search.backends.wikipedia.language import wikipedia_language
from ponder.services.search.base import SearchBackendError
from ponder.services.search.pacing import Pace
from ponder.settings.configuration import Configuration
from ponder.testing import Rig, ScriptedBackend


@pytest.fixture
def wiki() -> Iterator[FakeApi]:
    server = FakeApi(mediawiki)
    yield server
    server.close()


@pytest.fixture
def papers() -> Iterator[FakeApi]:
    server = FakeApi(arxiv)
    yield server
    server.close()


@pytest.fixture
def quick_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """arXiv's three seconds, shortened where a test is not about them."""
    monkeypatch.setattr(arxiv_module, "PACE", Pace(0.2))


def api_url(server: FakeApi) -> str:
    return f"{server.url}/w/api.php"


# -- Wikipedia -----------------------------------------------------------------------------


async def test_wikipedia_results_are_articles_with_their_best_sections(wiki: FakeApi) -> None:
    found = await WikipediaSearch(api_url(wiki)).search("spring and neap tides", 3)
    assert [r.title for r in found][:1] == ["Tide"]
    tide = found[0]
    assert tide.url == f"{wiki.url}/wiki/Tide" and tide.origin == "web"
    assert tide.location == "section Lead; section Causes; section Spring and neap tides"
    assert "quarter Moons" in (tide.content or "") and "<span" not in tide.snippet
    searched, read = wiki.requests[0], wiki.requests[1]
    assert searched.params["list"] == "search" and searched.params["maxlag"] == "5"
    assert searched.params["formatversion"] == "2" and searched.params["srlimit"] == "3"
    assert read.params["prop"] == "extracts|info" and read.params["explaintext"] == "1"
    assert read.params["titles"] == "Tide"


async def test_wikipedia_says_who_is_asking(wiki: FakeApi) -> None:
    await WikipediaSearch(api_url(wiki)).search("tide", 1)
    agent = wiki.requests[0].user_agent
    assert agent.startswith("ponder/") and "https://" in agent and "httpx/" in agent


def test_empty_sections_are_left_out_and_the_lead_is_kept() -> None:
    from support.public_apis import ARTICLES

    found = sections(ARTICLES["Tide"])
    assert [h for h, _ in found] == ["Lead", "Causes", "Spring and neap tides"]
    chosen = best_sections(found * 2, "neap tides")  # six passages: the lead and two best
    assert [h for h, _ in chosen] == ["Lead", "Spring and neap tides", "Spring and neap tides"]


async def test_no_wikipedia_hits_is_an_empty_list(wiki: FakeApi) -> None:
    wiki.mode = "empty"
    assert await WikipediaSearch(api_url(wiki)).search("tide", 3) == []


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("badvalue", "Wikipedia refused the request (badvalue: Unrecognized value"),
        ("html", "did not answer JSON — is wikipedia_url a MediaWiki /w/api.php?"),
        ("429", "Wikipedia is busy (HTTP 429); it asks to wait 120s"),
        ("ratelimited", "Wikipedia is busy (ratelimited: You've exceeded your rate limit"),
    ],
)
async def test_wikipedia_errors_are_backend_failures_that_say_what_happened(
    wiki: FakeApi, mode: str, said: str
) -> None:
    wiki.mode = mode
    with pytest.raises(SearchBackendError) as failure:
        await WikipediaSearch(api_url(wiki)).search("tide", 3)
    assert said in str(failure.value)


async def test_maxlag_is_waited_out_once_as_its_retry_after_says(wiki: FakeApi) -> None:
    wiki.queue = ["maxlag"]
    started = time.monotonic()
    found = await WikipediaSearch(api_url(wiki)).search("tide", 1)
    assert found and found[0].title == "Tide"
    assert time.monotonic() - started >= 1.0  # Retry-After: 1
    assert wiki.requests[1].at - wiki.requests[0].at >= 1.0


async def test_a_503_with_a_short_retry_after_is_asked_again_once(wiki: FakeApi) -> None:
    wiki.queue = ["503"]
    assert await WikipediaSearch(api_url(wiki)).search("tide", 1)
    wiki.queue = ["503", "503"]
    public_api.forget_failures()
    with pytest.raises(SearchBackendError, match=r"busy \(HTTP 503\)"):
        await WikipediaSearch(api_url(wiki)).search("tide", 1)


async def test_a_silent_api_costs_one_time_limit_then_the_host_rests(wiki: FakeApi) -> None:
    wiki.delay = 2.0
    backend = WikipediaSearch(api_url(wiki), timeout=0.3)
    started = time.monotonic()
    outcomes = await asyncio.gather(
        *(backend.search(f"tide {i}", 2) for i in range(4)), return_exceptions=True
    )
    assert all(isinstance(o, SearchBackendError) for o in outcomes)
    assert "did not answer within 0.3s" in str(outcomes[0])
    assert time.monotonic() - started < 1.5  # not four time limits in single file
    assert len(wiki.requests) == 1
    with pytest.raises(SearchBackendError, match="not asked again"):
        await backend.search("tide", 2)


async def test_requests_to_wikipedia_go_one_at_a_time(wiki: FakeApi) -> None:
    wiki.delay = 0.1
    backend = WikipediaSearch(api_url(wiki))
    await asyncio.gather(*(backend.search(q, 2) for q in ("tide", "moon", "bore")))
    starts = sorted(r.at for r in wiki.requests)
    assert all(later - earlier >= 0.1 for earlier, later in itertools.pairwise(starts))


def test_the_question_chooses_the_edition() -> None:
    assert wikipedia_language("Wie entstehen die Gezeiten an der Nordsee?") == "de"
    assert wikipedia_language("Comment fonctionnent les marées ?") == "fr"
    assert wikipedia_language("How do tides work?") == "en"
    assert wikipedia_language("xq zz") == "en"  # unsure: English


async def test_make_search_asks_the_edition_of_the_question(wiki: FakeApi) -> None:
    template = f"{wiki.url}/{{lang}}/w/api.php"
    config = Configuration(search="wikipedia", wikipedia_url=template, cache=False)
    await make_search(
        config, print, topic="Wie entstehen die Gezeiten?", environment=here()
    ).search("Gezeiten", 1)
    chosen = Configuration(search="wikipedia", wikipedia_url=template, wikipedia_lang="fr")
    await make_search(chosen, print, topic="Wie entstehen?", environment=here()).search("marée", 1)
    assert [r.path for r in wiki.requests] == ["/de/w/api.php", "/fr/w/api.php"]


# -- arXiv ---------------------------------------------------------------------------------


def test_a_question_becomes_arxiv_query_syntax_and_nothing_else() -> None:
    assert search_query("How do tidal bores form?") == "all:tidal OR all:bores OR all:form"
    assert search_query('ti:"x" AND (cat:evil) ANDNOT y') == "all:ti OR all:cat OR all:evil"


async def test_arxiv_entries_are_papers_with_authors_date_and_abstract(
    papers: FakeApi, quick_pace: None
) -> None:
    found = await ArxivSearch(f"{papers.url}/api/query").search("tidal dissipation day", 5)
    first = found[0]
    assert first.url == f"{papers.url}/abs/2301.01234v2"
    assert first.title == (
        "Tidal dissipation in shallow seas and the lengthening of the day — "
        "A. Marin, B. Okafor, C. Lindqvist et al., 2023-01-04"
    )
    assert (
        first.snippet.startswith("We estimate how much tidal energy") and "\n" not in first.snippet
    )
    assert first.location == "abstract"
    asked = papers.requests[0]
    assert asked.path == "/api/query" and asked.params["start"] == "0"
    assert asked.params["max_results"] == "5" and asked.params["sortBy"] == "relevance"
    assert asked.user_agent.startswith("ponder/")


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("error", "arXiv refused the query: max_results must be an integer"),
        ("rate", "arXiv is busy (Rate exceeded)"),
        ("html", "did not answer an Atom feed — is arxiv_url its /api/query?"),
    ],
)
async def test_arxiv_errors_are_backend_failures(
    papers: FakeApi, quick_pace: None, mode: str, said: str
) -> None:
    papers.mode = mode
    with pytest.raises(SearchBackendError) as failure:
        await ArxivSearch(f"{papers.url}/api/query").search("tides", 3)
    assert said in str(failure.value)


async def test_an_empty_feed_is_no_results(papers: FakeApi, quick_pace: None) -> None:
    papers.mode = "empty"
    assert await ArxivSearch(f"{papers.url}/api/query").search("tides", 3) == []


async def test_arxiv_gets_one_request_every_three_seconds_from_the_whole_process(
    papers: FakeApi,
) -> None:
    url = f"{papers.url}/api/query"
    started = time.monotonic()
    # Two backends, as two rounds or researchers build them, asking at the same moment.
    await asyncio.gather(ArxivSearch(url).search("tides", 2), ArxivSearch(url).search("moon", 2))
    assert time.monotonic() - started >= 3.0
    first, second = sorted(r.at for r in papers.requests)
    # Started 3 s apart; on a loaded machine the first may reach the server a little late
    # (2.948 s apart was seen at load 16). Unpaced, they arrive together.
    assert second - first >= 2.5


async def test_a_cancelled_wait_for_arxiv_leaves_the_queue(papers: FakeApi) -> None:
    url = f"{papers.url}/api/query"
    await ArxivSearch(url).search("tides", 1)  # the next turn is three seconds away
    waiting = asyncio.create_task(ArxivSearch(url).search("moon", 1))
    await asyncio.sleep(0.1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert len(papers.requests) == 1


# -- together, cached, in runs ---------------------------------------------------------------


def both(wiki: FakeApi, papers: FakeApi, **more: Any) -> dict[str, Any]:
    return {
        "wikipedia_url": api_url(wiki),
        "arxiv_url": f"{papers.url}/api/query",
        **more,
    }


async def test_wikipedia_and_arxiv_together(
    wiki: FakeApi, papers: FakeApi, quick_pace: None
) -> None:
    config = Configuration(search=["wikipedia", "arxiv"], cache=False, **both(wiki, papers))
    found = await make_search(config, print, environment=here()).search(
        "tidal bore spring tides", 4
    )
    assert {r.backend for r in found} == {"wikipedia", "arxiv"}


async def test_one_failing_side_of_a_combination_is_a_warning(
    wiki: FakeApi, papers: FakeApi, quick_pace: None
) -> None:
    papers.mode = "rate"
    warnings: list[str] = []
    config = Configuration(search="wikipedia,arxiv", cache=False, **both(wiki, papers))
    found = await make_search(config, warnings.append, environment=here()).search("tidal bore", 3)
    assert found and {r.backend for r in found} == {"wikipedia"}
    assert any("arxiv" in w and "Rate exceeded" in w for w in warnings), warnings


async def test_answers_are_cached_per_edition(wiki: FakeApi, papers: FakeApi) -> None:
    config = Configuration(search="wikipedia", **both(wiki, papers))
    first = await make_search(config, print, environment=here()).search("tide", 1)
    again = await make_search(config, print, environment=here()).search("tide", 1)
    assert first == again and len(wiki.requests) == 2  # one search, one article
    other = config.model_copy(update={"wikipedia_url": f"{wiki.url}/fr/w/api.php"})
    await make_search(other, print, environment=here()).search("tide", 1)
    assert len(wiki.requests) == 4


async def test_full_text_reads_each_pdf_once_through_the_reader(
    papers: FakeApi, quick_pace: None
) -> None:
    config = Configuration(
        search="arxiv",
        arxiv_url=f"{papers.url}/api/query",
        fetch_full_page=True,
        allow_private_urls=True,  # the mirror is on this machine
    )
    found = await make_search(config, print, environment=here()).search("tidal dissipation", 1)
    assert found[0].location == "abstract and full text (PDF)"
    assert "the method section measures tides" in (found[0].content or "")
    await make_search(config, print, environment=here()).search("tidal dissipation", 1)
    assert [r.path for r in papers.requests] == ["/api/query", "/pdf/2301.01234v2"]


async def test_a_pdf_on_a_private_address_is_not_read_unless_allowed(
    papers: FakeApi, quick_pace: None
) -> None:
    warnings: list[str] = []
    config = Configuration(
        search="arxiv", arxiv_url=f"{papers.url}/api/query", fetch_full_page=True
    )
    found = await make_search(config, warnings.append, environment=here()).search(
        "tidal dissipation", 1
    )
    assert found[0].location == "abstract" and found[0].content == found[0].snippet
    assert any("Kept the abstract" in w and "refused" in w for w in warnings), warnings
    assert [r.path for r in papers.requests] == ["/api/query"]


def run_settings(rig: Rig, **more: Any) -> dict[str, Any]:
    return {
        "model": "scripted",
        "ollama_base_url": rig.url,
        "mode": "loop",
        "max_loops": 1,
        "cache": False,
        **more,
    }


async def test_a_run_with_wikipedia_cites_the_article(wiki: FakeApi) -> None:
    with Rig(ScriptedBackend()) as rig:
        report = await aresearch(
            "Why are there spring and neap tides?",
            **run_settings(rig, search="wikipedia", wikipedia_url=api_url(wiki)),
        )
    cited = report.cited_sources()
    assert any(s.url == f"{wiki.url}/wiki/Tide" for s in cited), report.markdown
    assert any("section" in loc for s in report.sources for loc in s.locations)


async def test_a_run_with_arxiv_cites_a_paper(papers: FakeApi, quick_pace: None) -> None:
    with Rig(ScriptedBackend()) as rig:
        report = await aresearch(
            "How does tidal dissipation lengthen the day?",
            **run_settings(rig, search="arxiv", arxiv_url=f"{papers.url}/api/query"),
        )
    assert any("/abs/2301.01234v2" in s.url for s in report.cited_sources()), report.markdown
    assert "A. Marin" in report.markdown  # the byline is in the source's title


async def test_a_run_whose_apis_cannot_be_reached_stops_at_once_and_says_why() -> None:
    """Nothing listens where the APIs should be, and no documents are set up: one quick
    check, then one error naming each API and its address, before any model call."""
    from ponder.core.errors import ExitCode, OfflineError

    with Rig(ScriptedBackend()) as rig:
        started = time.perf_counter()
        with pytest.raises(OfflineError) as raised:
            await aresearch("How do tides work?", **run_settings(rig, search="wikipedia,arxiv"))
        seconds = time.perf_counter() - started
        model_calls = rig.chat_log()
    said = str(raised.value)
    assert "wikipedia at http://127.0.0.1:9/w/api.php: it refused the connection" in said
    assert "arxiv at http://127.0.0.1:9/api/query: it refused the connection" in said
    assert "--docs" in said and raised.value.exit_code == ExitCode.OFFLINE
    assert model_calls == [] and seconds < 5, "no model call, no retries"


async def test_a_run_whose_apis_fail_ends_with_a_report_and_says_why(
    wiki: FakeApi, papers: FakeApi, quick_pace: None
) -> None:
    """The APIs answer, with errors every time: the report says what went wrong, each
    warning once with how often it came."""
    wiki.mode, papers.mode = "badvalue", "error"
    with Rig(ScriptedBackend()) as rig:
        report = await aresearch(
            "How do tides work?",
            **run_settings(rig, search="wikipedia,arxiv", max_loops=2, **both(wiki, papers)),
        )
    assert "No sources were found" in report.markdown
    failures = [w for w in report.stats.warnings if w.startswith("Every search backend failed")]
    assert len(failures) == 1 and "more like it)" in failures[0], report.stats.warnings
    assert "Wikipedia" in failures[0] and "arXiv" in failures[0]
    assert report.markdown.count("\n- Every search backend failed") == 1


def test_doctor_checks_each_api_a_combination_asks(wiki: FakeApi, papers: FakeApi) -> None:
    from ponder.interfaces.doctor import search_checks

    up = Configuration(search="wikipedia,arxiv", **both(wiki, papers))
    assert [c.message for c in search_checks(up)][1:] == [
        "The web can be reached (wikipedia, arxiv)",
        "Wikipedia is reachable",
        "arXiv is reachable",
    ]
    assert wiki.requests[0].user_agent.startswith("ponder/")
    down = [c for c in search_checks(Configuration(search="arxiv")) if c.outcome == "fail"]
    assert down and "arxiv at https://export.arxiv.org/api/query" in down[0].message
    assert down[0].exit_code == 9 and "--docs" in down[0].message  # offline, nothing else
