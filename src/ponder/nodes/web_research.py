"""web_research: run the round's queries in parallel and register what they found.

Queries run concurrently with a bounded ``asyncio.gather`` inside this one node rather than
one ``Send`` per query: the round stays a single checkpointed step, so
``research_loop_count`` grows by exactly one and source numbers are handed out in one place
without races, while the semaphore keeps a laptop's network and disk from being flooded.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ponder.core.errors import SearchBackendError
from ponder.core.sources import Numbering, Source, merge_sources
from ponder.core.state import Finding, LoopState
from ponder.nodes.context import NodeContext, node
from ponder.nodes.route import rounds_done, spent_by
from ponder.services.research.budget import time_left
from ponder.services.research.findings import PIECE_SEPARATOR, finding_pieces, piece_digest
from ponder.services.research.vetting import MAX_QUERY_CHARS
from ponder.services.search import SearchBackend, SearchResult, make_search
from ponder.services.text.passages import best_passages

MAX_PARALLEL_QUERIES = 5
PASSAGE_CHARS = 1200  # evidence kept per result; the summary prompt trims further by rank


@node("web_research")
async def web_research(state: LoopState, ctx: NodeContext) -> dict[str, Any]:
    queries = searchable(state.get("queries"), ctx.config.queries_per_round)
    round_number = rounds_done(state, ctx.config) + 1
    # The loop's own estimate; a researcher's rounds are the supervisor's to plan.
    left = None if ctx.researcher else time_left(spent_by(state, ctx.config), ctx.config)
    ctx.emit(
        "round_start",
        round=round_number,
        max_rounds=ctx.config.max_loops,
        queries=queries,
        **({"seconds_left": round(left, 1)} if left is not None else {}),
    )
    ctx.count("rounds")  # every search round of the run, the loop's and each researcher's
    # Off the event loop: opening the local index touches the disk (LangGraph Server forbids
    # blocking calls in async nodes).
    backend = await asyncio.to_thread(
        make_search, ctx.config, ctx.warn, state["topic"], environment=ctx.environment
    )
    results = await _search_all(backend, queries, ctx)
    if ctx.config.fetch_full_page:
        results = await _read_full_pages(results, ctx)
    summarized = set(state.get("summarized", [])[state.get("turn_start", 0) :])
    # Off the event loop: choosing passages of pages up to a few MB takes a second, and a
    # served process must answer other requests meanwhile.
    sources, findings = await asyncio.to_thread(
        _register, state.get("sources", []), results, state["topic"], summarized
    )
    known = state.get("sources", [])
    _announce_new(known, sources, ctx)
    total = len(merge_sources(known, sources))
    ctx.emit("sources", new=total - len(known), total=total)
    return {
        "queries_run": queries,
        "sources": sources,
        "round_findings": findings,
        "research_loop_count": round_number,
    }


def searchable(queries: Any, limit: int) -> list[str]:
    """The round's queries as the graph writes them: distinct texts, at most ``limit`` of
    them (``queries_per_round``), each at most MAX_QUERY_CHARS long. Whatever is beyond
    that came from outside the graph (a write to a served thread's state) and is not
    searched."""
    kept: list[str] = []
    for query in queries if isinstance(queries, list) else []:
        text = " ".join(query.split())[:MAX_QUERY_CHARS] if isinstance(query, str) else ""
        if text and text not in kept:
            kept.append(text)
    return kept[:limit]


async def _search_all(
    backend: SearchBackend, queries: list[str], ctx: NodeContext
) -> list[tuple[str, list[SearchResult]]]:
    limit = asyncio.Semaphore(MAX_PARALLEL_QUERIES)

    async def one(query: str) -> tuple[str, list[SearchResult]]:
        async with limit:
            started = time.perf_counter()
            try:
                found = await backend.search(query, ctx.config.results_per_query)
            except SearchBackendError as exc:  # a failing query must not sink the round
                ctx.warn(f"Search for {query!r} failed: {exc}")
                found = []
            found = addressed(found, ctx)
            ctx.count("search_calls")
            ctx.count("search_seconds", time.perf_counter() - started)
            if not found:
                ctx.warn(f"Search for {query!r} returned nothing.")
            return query, found

    return list(await asyncio.gather(*(one(q) for q in queries)))


def addressed(found: list[SearchResult], ctx: NodeContext) -> list[SearchResult]:
    """The results at an address ponder can key and read (http(s), or a document's path);
    the others (``javascript:``, ``mailto:``, a bare path from the web) are dropped."""
    kept = [result for result in found if result.well_addressed()]
    if len(kept) < len(found):
        ctx.warn(f"Dropped {len(found) - len(kept)} result(s) at an address that is no web page.")
    return kept


async def _read_full_pages(
    results: list[tuple[str, list[SearchResult]]], ctx: NodeContext
) -> list[tuple[str, list[SearchResult]]]:
    from ponder.services.web.reader import PageReader

    # Opening the page cache touches SQLite: keep it off the event loop.
    folder = ctx.environment.cache_folder
    reader = await asyncio.to_thread(PageReader.from_config, ctx.config, folder, ctx.warn)
    # A result that came with its text (a Wikipedia article, an arXiv paper) is not fetched
    # again: the API's text is cleaner than the page around it.
    web = [r for _, found in results for r in found if r.origin == "web" and not r.content]
    # Each page once, however many of the round's queries found it.
    urls = list(dict.fromkeys(r.url for r in web))
    pages = dict(zip(urls, await reader.read_many(urls), strict=True))
    for url, page in pages.items():
        if not page.text:
            title = next(r.title for r in web if r.url == url)
            ctx.emit("source", url=url, title=title, failed=page.reason)
            ctx.warn(f"Could not read {url}: {page.reason}; kept its snippet.")
    for result in web:
        result.content = pages[result.url].text or result.content
    return results


def _announce_new(known: list[Source], sources: list[Source], ctx: NodeContext) -> None:
    """One ``source`` event per source read for the first time: a live view lists them."""
    seen = {source["number"] for source in known}
    for source in sources:
        if source["number"] not in seen:
            seen.add(source["number"])
            ctx.emit(
                "source",
                number=source["number"],
                url=source["url"],
                title=source["title"],
                origin=source["origin"],
            )


def _register(
    known: list[Source],
    results: list[tuple[str, list[SearchResult]]],
    topic: str,
    summarized: set[str],
) -> tuple[list[Source], list[Finding]]:
    """Give new sources the next free numbers; known ones keep theirs.

    A finding carries only passages this loop has not summarized yet, so the model is never
    shown the same passage twice (and a round that found nothing new costs no summary call).
    """
    numbering = Numbering(known)
    sources: list[Source] = []
    findings: list[Finding] = []
    for query, found in results:
        for result in found:
            passages = best_passages(result.text, f"{topic} {query}", PASSAGE_CHARS) or [
                result.snippet
            ]
            text = PIECE_SEPARATOR.join(p for p in passages if p.strip())
            if not text.strip():
                continue  # nothing was read: no number, so numbering has no gaps
            number = numbering.number(result.url)
            sources.append(
                Source(
                    number=number,
                    url=result.url,
                    title=result.title or result.url,
                    origin=result.origin,
                    passages=[text],
                    locations=[result.location or ""],
                    authors=list(result.authors),
                    date=result.date,
                    link=result.link,
                )
            )
            unseen = [p for p in finding_pieces(text) if piece_digest(p) not in summarized]
            if unseen:
                findings.append(
                    Finding(
                        number=number,
                        query=query,
                        title=result.title,
                        url=result.url,
                        text=PIECE_SEPARATOR.join(unseen),
                    )
                )
    return sources, findings
