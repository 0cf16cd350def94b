"""The report's Sources: each source with what was read, the spans its citations rest on
marked; and the page's footer."""

from __future__ import annotations

import html

from ponder.core.result import Citation, Report, SourceRef
from ponder.core.sources import byline


def sources_section(sources: list[SourceRef], citations: list[Citation]) -> str:
    if not sources:
        return ""
    items = "\n".join(_source_item(source, citations) for source in sources)
    return f'<h2 id="sources">Sources</h2>\n<ol class="sources">\n{items}\n</ol>\n'


def _source_item(source: SourceRef, citations: list[Citation]) -> str:
    title = html.escape(source.title or source.url)
    where = html.escape(source.url)
    if source.url.startswith(("http://", "https://")):
        link = f'<a href="{where}" rel="noreferrer noopener">{title}</a>'
    else:
        link = f"<strong>{title}</strong> <code>{where}</code>"
    # Two passages picked from one search hit share its location: name it once.
    locations = ", ".join(html.escape(loc) for loc in dict.fromkeys(source.locations) if loc)
    origin = html.escape(source.origin) + (f" · {locations}" if locations else "")
    by = html.escape(byline(source.model_dump()))  # type: ignore[arg-type]
    link += f' <span class="byline">{by}</span>' if by else ""
    if source.link and source.link.startswith(("http://", "https://")):
        to = html.escape(source.link)
        link += f' <a class="published" href="{to}" rel="noreferrer noopener">{to}</a>'
    spans = [(c.passage, c.start, c.end) for c in citations if c.number == source.number]
    passages = (
        "\n".join(
            f'<blockquote class="passage">{_marked(passage, index, spans)}</blockquote>'
            for index, passage in enumerate(source.passages)
            if passage.strip()
        )
        or "<p><em>No passage was kept for this source.</em></p>"
    )
    kept = sum(1 for passage in source.passages if passage.strip())
    # Folded: the report comes first. A citation's own passage shows on hover, and opens
    # here when the citation is followed (li:target, in the page's style).
    return (
        f'<li id="source-{source.number}" value="{source.number}">{link} '
        f'<span class="origin">({origin})</span>\n'
        f'<details class="read"><summary>What was read ({kept} passage'
        f"{'' if kept == 1 else 's'})</summary>\n{passages}\n</details></li>"
    )


def _marked(passage: str, index: int, spans: list[tuple[int, int, int]]) -> str:
    """The passage, escaped, with the spans that citations rest on marked."""
    ranges = sorted((start, end) for number, start, end in spans if number == index)
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        out.append(html.escape(passage[last:start]))
        out.append(f"<mark>{html.escape(passage[start:end])}</mark>")
        last = end
    out.append(html.escape(passage[last:]))
    return "".join(out)


def footer(report: Report) -> str:
    stats = report.stats
    facts = (
        f"{stats.rounds} round(s) · {stats.llm_calls} model calls · "
        f"{stats.prompt_tokens + stats.completion_tokens:,} tokens · "
        f"{stats.wall_seconds:.0f}s · run {report.thread_id}"
    )
    return f"<footer>Written by ponder · {html.escape(facts)}</footer>"
