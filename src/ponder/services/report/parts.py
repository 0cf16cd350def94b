"""A written report completed for the parts of the question it leaves uncited.

A weak model asked "How do I compress a JSON document with gzip and read it back?" may
write a good paragraph on gzip and nothing that cites the page on reading it back, though
that page was found. Each part of a joined question (its aspects) that no cited passage of
the report is about is completed with a quote of the page most about it that the report
does not cite, under a visible note. A capable model's report that answers every part is
left as it was written: a cited passage of it is about each part.
"""

from __future__ import annotations

from collections.abc import Sequence

from ponder.core.sources import Source
from ponder.services.report.extractive import most_relevant, source_text
from ponder.services.report.quotes import boilerplate, lead, quote
from ponder.services.research.aspects import Aspect, cited_units
from ponder.services.text.citations import cited_numbers

NOTE = "*The text above cites nothing on {parts}; quoted from the source most about {it}:*"


def completed_parts(
    body: str, sources: list[Source], aspects: Sequence[Aspect]
) -> tuple[str, list[str]]:
    """``body`` with a quote of its best page for each part it leaves uncited, and those
    parts; as it was when it cites nothing at all (the composer then writes an extractive
    report) or leaves no part uncited."""
    cited = set(cited_numbers(body))
    if not aspects or not cited:
        return body, []
    units = cited_units(body)
    shared = boilerplate(sources)
    missing: list[str] = []
    quotes: list[str] = []
    for aspect in aspects:
        if any(aspect.in_text(unit) for unit in units):
            continue
        best = best_uncited_page(aspect, sources, cited)
        if best is None:
            continue
        text = quote(best, aspect.query, shared | lead(best))
        if text:
            missing.append(f"“{aspect.query}”")
            quotes.append(text)
            cited.add(best["number"])
    if not quotes:
        return body, []
    note = NOTE.format(parts=", ".join(missing), it="it" if len(missing) == 1 else "each")
    return "\n\n".join([body.rstrip(), note, *quotes]), missing


def best_uncited_page(aspect: Aspect, sources: list[Source], cited: set[int]) -> Source | None:
    """The source most about the part (BM25 on what was read of it) that the report does not
    cite, if one is about the part at all (it holds enough of the part's own words).

    The best is often cited already for the other part: what was read of every page was
    chosen for the whole question, so the socket page read for "send pickled objects over a
    socket" holds "pickled objects" too, and "send" more than any other page.
    """
    about = most_relevant(sources, aspect.query, len(sources), at_least=1e-9)
    return next(
        (s for s in about if s["number"] not in cited and aspect.in_text(source_text(s))), None
    )
