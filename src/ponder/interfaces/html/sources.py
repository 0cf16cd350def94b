"""The report's Sources: each source with what was read, the spans its citations rest on
marked; and the page's footer."""

from __future__ import annotations

import html
from pathlib import PurePath
from urllib.parse import urlsplit

from ponder.core.result import Citation, Report, SourceRef
from ponder.core.sources import byline


def sources_section(
    sources: list[SourceRef], citations: list[Citation], anchors: str = "", *, copy: bool = False
) -> str:
    """``anchors``: the prefix of the ids, one per report on a page (#{anchors}source-n);
    ``copy``: each card with a Copy button (the page's script makes it work)."""
    if not sources:
        return ""
    items = "\n".join(_source_item(source, citations, anchors, copy) for source in sources)
    return f'<h2 id="{anchors}sources">Sources</h2>\n<ol class="sources">\n{items}\n</ol>\n'


def _source_item(source: SourceRef, citations: list[Citation], anchors: str, copy: bool) -> str:
    """A compact card: number, title, site or file type, who and when, and what was read
    (folded: the report comes first; a followed citation opens it, li:target in the style)."""
    title = html.escape(source.title or source.url)
    where = html.escape(source.url)
    web = source.url.startswith(("http://", "https://"))
    link = (
        f'<a href="{where}" rel="noreferrer noopener">{title}</a>'
        if web
        else f"<strong>{title}</strong>"
    )
    # Two passages picked from one search hit share its location: name it once.
    locations = [html.escape(loc) for loc in dict.fromkeys(source.locations) if loc]
    facts = " · ".join([html.escape(site_or_type(source)), *locations])
    facts += "" if web else f' · <code class="path">{where}</code>'
    by = html.escape(byline(source.model_dump()))  # type: ignore[arg-type]
    facts += f' · <span class="byline">{by}</span>' if by else ""
    if source.link and source.link.startswith(("http://", "https://")):
        to = html.escape(source.link)
        facts += f' · <a class="published" href="{to}" rel="noreferrer noopener">{to}</a>'
    return (
        f'<li id="{anchors}source-{source.number}" value="{source.number}" class="card" '
        f'data-cite="{html.escape(reference_line(source))}">'
        f'<span class="number" aria-hidden="true">{source.number}</span>'
        f'<div class="card-body">{link}\n<p class="origin">{facts}</p>\n'
        f"{_read(source, citations)}</div>{_copy_source(source) if copy else ''}</li>"
    )


def _copy_source(source: SourceRef) -> str:
    return (
        f'<button type="button" class="quiet copy" data-copy="source" '
        f'aria-label="Copy source {source.number} as a reference">Copy</button>'
    )


def _read(source: SourceRef, citations: list[Citation]) -> str:
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
    return (
        f'<details class="read"><summary>What was read ({kept} passage'
        f"{'' if kept == 1 else 's'})</summary>\n{passages}\n</details>"
    )


def site_or_type(source: SourceRef) -> str:
    """Where a source is from, in a word or two: a web page's site, a file's type (a ZIM
    archive's article is named by its archive)."""
    if source.url.startswith(("http://", "https://")):
        return (urlsplit(source.url).hostname or "web page").removeprefix("www.")
    if source.origin == "mcp":
        return "MCP tool"
    archive, found, _article = source.url.partition(".zim/")
    if found:
        return f"ZIM · {PurePath(archive).name}.zim"
    suffix = PurePath(source.url.split("#", 1)[0]).suffix.lstrip(".").upper()
    return f"{suffix} file" if suffix else "file"


def reference_line(source: SourceRef) -> str:
    """The source as one line to paste: who and when, the title, where to find it."""
    by = byline(source.model_dump())  # type: ignore[arg-type]
    found_at = source.link or source.url
    return " ".join(part for part in (by, f"{source.title or source.url}.", found_at) if part)


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
