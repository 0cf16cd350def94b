"""A self-contained HTML report: every ``[n]`` links to source n, which shows what was read.

People check citations by looking, so each source entry carries the passages ponder
actually read, not only a link. Everything that came from a model or a web page is escaped:
the Markdown renderer runs with raw HTML disabled, and titles, URLs and passages go through
``html.escape``. Only http(s) URLs become links; the page loads nothing from anywhere.
"""

from __future__ import annotations

import html
import re
from typing import Any

from ponder.report import Report, SourceRef

CITATION = re.compile(r"\[(\d{1,4})\]")

STYLE = """
body { font: 16px/1.55 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1d1f; background: #fff; }
h1, h2, h3 { line-height: 1.25; }
a.cite { text-decoration: none; font-size: 0.8em; vertical-align: super; }
ol.sources > li { margin-bottom: 1.2rem; }
ol.sources > li:target { background: #fff6d5; }
.origin { color: #666; font-size: 0.85em; }
blockquote.passage { margin: 0.4rem 0 0.4rem 0; padding: 0.3rem 0.8rem; color: #333;
                     border-left: 3px solid #ccc; background: #fafafa; white-space: pre-wrap; }
footer { margin-top: 2rem; color: #666; font-size: 0.85em; }
@media (prefers-color-scheme: dark) {
  body { color: #e8e8e8; background: #161616; }
  blockquote.passage { color: #ddd; background: #222; border-color: #444; }
  ol.sources > li:target { background: #3a3320; }
}
"""


def render_html(report: Report) -> str:
    """The whole page as one string."""
    # The Sources list is built in code as the last "## Sources" section; a heading such as
    # "## Sources of energy" in the body is not it.
    body_markdown, found, _listed = report.markdown.rpartition("\n## Sources\n")
    if not found:
        body_markdown = report.markdown
    sources = report.cited_sources()
    known = {source.number for source in sources}
    body = markdown_to_html(body_markdown, known)
    title = html.escape(report.topic)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<main>\n{body}\n{_sources_section(sources)}</main>\n"
        f"{_footer(report)}\n</body>\n</html>\n"
    )


def markdown_to_html(markdown: str, citable: set[int]) -> str:
    """Markdown → HTML with raw HTML escaped and ``[n]`` turned into links to #source-n."""
    from markdown_it import MarkdownIt  # installed with rich

    engine = MarkdownIt("commonmark", {"html": False, "linkify": False})
    tokens = engine.parse(markdown)
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _link_citations(token.children, citable)
    rendered: str = engine.renderer.render(tokens, engine.options, {})
    return rendered


def _link_citations(children: list[Any], citable: set[int]) -> list[Any]:
    from markdown_it.token import Token

    out: list[Any] = []
    inside_link = 0
    for child in children:
        inside_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        if child.type != "text" or inside_link or not CITATION.search(child.content):
            out.append(child)
            continue
        last = 0
        for match in CITATION.finditer(child.content):
            out.append(_text(child.content[last : match.start()]))
            number = int(match.group(1))
            if number in citable:
                anchor = (
                    f'<a class="cite" href="#source-{number}" '
                    f'title="Source {number}">[{number}]</a>'
                )
                out.append(Token("html_inline", "", 0, content=anchor))
            else:
                out.append(_text(match.group(0)))
            last = match.end()
        out.append(_text(child.content[last:]))
    return out


def _text(content: str) -> Any:
    from markdown_it.token import Token

    return Token("text", "", 0, content=content)


def _sources_section(sources: list[SourceRef]) -> str:
    if not sources:
        return ""
    items = "\n".join(_source_item(source) for source in sources)
    return f'<h2 id="sources">Sources</h2>\n<ol class="sources">\n{items}\n</ol>\n'


def _source_item(source: SourceRef) -> str:
    title = html.escape(source.title or source.url)
    where = html.escape(source.url)
    if source.url.startswith(("http://", "https://")):
        link = f'<a href="{where}" rel="noreferrer noopener">{title}</a>'
    else:
        link = f"<strong>{title}</strong> <code>{where}</code>"
    locations = ", ".join(html.escape(loc) for loc in source.locations if loc)
    origin = html.escape(source.origin) + (f" · {locations}" if locations else "")
    passages = (
        "\n".join(
            f'<blockquote class="passage">{html.escape(passage)}</blockquote>'
            for passage in source.passages
            if passage.strip()
        )
        or "<p><em>No passage was kept for this source.</em></p>"
    )
    return (
        f'<li id="source-{source.number}" value="{source.number}">{link} '
        f'<span class="origin">({origin})</span>\n'
        f"<details open><summary>What was read</summary>\n{passages}\n</details></li>"
    )


def _footer(report: Report) -> str:
    stats = report.stats
    facts = (
        f"{stats.rounds} round(s) · {stats.llm_calls} model calls · "
        f"{stats.prompt_tokens + stats.completion_tokens:,} tokens · "
        f"{stats.wall_seconds:.0f}s · run {report.thread_id}"
    )
    return f"<footer>Written by ponder · {html.escape(facts)}</footer>"
