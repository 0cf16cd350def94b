"""A self-contained HTML report: every ``[n]`` shows the passage it rests on.

People check citations by looking. Hovering or focusing a citation shows the span of the
source's passage that supports its sentence, with the source's title; clicking it goes to
the source's entry, which lists the passages ponder actually read with that span marked.
This needs no script: the page loads nothing and runs nothing. Everything that came from
a model or a web page is escaped:
the Markdown renderer runs with raw HTML disabled, and titles, URLs and passages go through
``html.escape``. Only http(s) URLs become links; the page loads nothing from anywhere.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ponder.core.result import Report
from ponder.interfaces.html.markdown import Evidence, markdown_to_html
from ponder.interfaces.html.sources import footer, sources_section

STYLE = """
body { font: 16px/1.55 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1d1f; background: #fff; }
h1, h2, h3 { line-height: 1.25; }
a.cite { text-decoration: none; font-size: 0.8em; vertical-align: super; }
main { position: relative; }
/* Placed under its line (top: auto keeps the static position) and as wide as the text,
   so a citation near the right edge never pushes its passage off the window. */
.evidence { display: none; position: absolute; left: 0; right: 0; z-index: 2;
            margin-top: 0.3rem; padding: 0.5rem 0.7rem; font-size: 0.85rem;
            white-space: pre-wrap; text-align: left; vertical-align: baseline;
            line-height: 1.4; color: #1d1d1f; background: #fffbe6; border: 1px solid #d9c98c;
            border-radius: 4px; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.15);
            max-height: 45vh; overflow-y: auto; }
.cited:hover .evidence, .cited:focus-within .evidence { display: block; }
.cited.dismissed .evidence { display: none; }
.evidence cite { display: block; margin-top: 0.3rem; color: #666; font-style: normal; }
mark { background: #fff1a8; }
.unsupported { font-size: 0.75em; vertical-align: super; color: #a33; cursor: help; }
ol.sources { list-style: none; padding: 0; display: grid; gap: 0.6rem; }
ol.sources > li.card { display: flex; gap: 0.7rem; align-items: flex-start; margin: 0;
                       padding: 0.55rem 0.8rem; border: 1px solid #d8dbe0; border-radius: 8px; }
li.card .number { flex: none; min-width: 1.7rem; height: 1.7rem; border-radius: 999px;
                  display: inline-grid; place-items: center; font-size: 0.85rem;
                  font-weight: 600; color: #1a5fb4; background: #eaf1fb; }
.card-body { flex: 1; min-width: 0; overflow-wrap: anywhere; }
.card-body p.origin { margin: 0.15rem 0 0.1rem; }
.card-body code.path { font-size: 0.95em; }
ol.sources > li:target { background: #fff6d5; }
ol.sources > li:target details.read::details-content { content-visibility: visible; }
details.read summary { cursor: pointer; color: #555; font-size: 0.9em; }
@media print {
  details.read:not([open]) { display: none; }
  ol.sources a[href^="http"]::after { content: " " attr(href); font-size: 0.85em; }
}
.origin { color: #666; font-size: 0.85em; }
table.written { border-collapse: collapse; margin: 0.8rem 0; display: block; overflow-x: auto; }
table.written th, table.written td { border: 1px solid #ccc; padding: 0.3rem 0.6rem;
                                     text-align: left; vertical-align: top; }
blockquote.passage { margin: 0.4rem 0 0.4rem 0; padding: 0.3rem 0.8rem; color: #333;
                     border-left: 3px solid #ccc; background: #fafafa; white-space: pre-wrap; }
section.turn + section.turn { margin-top: 2.5rem; border-top: 2px solid #ccc; }
p.asked { color: #666; margin-bottom: 0; }
footer { margin-top: 2rem; color: #666; font-size: 0.85em; }
@media (prefers-color-scheme: dark) {
  body { color: #e8e8e8; background: #161616; }
  a { color: #8ab4f8; }
  a:visited { color: #c58af9; }
  blockquote.passage { color: #ddd; background: #222; border-color: #444; }
  table.written th, table.written td { border-color: #444; }
  .evidence { color: #e8e8e8; background: #2b2716; border-color: #5c5432; }
  mark { background: #5c5020; color: #fff; }
  ol.sources > li:target { background: #3a3320; }
  ol.sources > li.card { border-color: #3a3d42; }
  li.card .number { color: #8ab4f8; background: #1f2a3a; }
}
"""


def render_html(report: Report | Sequence[Report]) -> str:
    """The whole page as one string: one report, or a thread's (one per turn, the first
    question its title)."""
    reports = [report] if isinstance(report, Report) else list(report)
    title = html.escape(reports[0].topic)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<main>\n{thread_body(reports)}</main>\n"
        f"{footer(reports[-1])}\n</body>\n</html>\n"
    )


COPY_REPORT = (
    '<div class="copy-bar"><button type="button" class="quiet copy" data-copy="report" '
    'aria-label="Copy the report as Markdown">Copy report</button></div>\n'
)


def thread_body(reports: Sequence[Report]) -> str:
    """A thread's reports one after the other, each in its turn's section with ids of its
    own; one report alone is just its body."""
    if len(reports) == 1:
        return report_body(reports[0])
    return "\n".join(
        f'<section class="turn" id="turn-{number}">\n'
        f'<p class="asked">{"Question" if number == 1 else "Follow-up"} {number}: '
        f"<q>{html.escape(report.topic)}</q></p>\n"
        f"{report_body(report, turn_anchors(number))}</section>"
        for number, report in _numbered(reports)
    )


def _numbered(reports: Sequence[Report]) -> list[tuple[int, Report]]:
    """Each report with its turn's number: as the thread counts them (a turn that failed
    keeps its place), else by position."""
    return [(report.turn or position, report) for position, report in enumerate(reports, 1)]


def turn_anchors(number: int) -> str:
    """The prefix of a turn's ids on a page of several: the first turn's are unprefixed,
    so its links (#source-3) stay what they were before it had follow-ups."""
    return "" if number == 1 else f"turn-{number}-"


def report_body(report: Report, anchors: str = "", *, copy: bool = False) -> str:
    """The report's text and its Sources, as HTML (the page's ``main``; the UI's report).
    ``anchors``: a prefix of its ids, for a page with several reports; ``copy``: with
    copy buttons for the report and each source (the UI's; the page's script runs them)."""
    # The Sources list is built in code as the last "## Sources" section; a heading such as
    # "## Sources of energy" in the body is not it.
    body_markdown, found, _listed = report.markdown.rpartition("\n## Sources\n")
    if not found:
        body_markdown = report.markdown
    sources = report.cited_sources()
    known = {source.number: source for source in sources}
    evidence = Evidence(report.citations, known)
    body = markdown_to_html(body_markdown, set(known), evidence, anchors)
    listed = sources_section(sources, report.citations, anchors, copy=copy)
    return f"{COPY_REPORT if copy else ''}{body}\n{listed}"


__all__ = [
    "STYLE",
    "Evidence",
    "markdown_to_html",
    "render_html",
    "report_body",
    "thread_body",
    "turn_anchors",
]
