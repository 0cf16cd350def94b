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
import re
from typing import Any

from ponder.report import UNSUPPORTED_MARK as MARK
from ponder.report import Citation, Report, SourceRef

CITATION = re.compile(r"\[(\d{1,4})\]")
_WORDS = re.compile(r"\w+")
SENTENCE_WINDOW = 60  # words before a citation that may belong to its sentence

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
            border-radius: 4px; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.15); }
.cited:hover .evidence, .cited:focus-within .evidence { display: block; }
.evidence cite { display: block; margin-top: 0.3rem; color: #666; font-style: normal; }
mark { background: #fff1a8; }
.unsupported { font-size: 0.75em; vertical-align: super; color: #a33; cursor: help; }
ol.sources > li { margin-bottom: 1.2rem; }
ol.sources > li:target { background: #fff6d5; }
.origin { color: #666; font-size: 0.85em; }
blockquote.passage { margin: 0.4rem 0 0.4rem 0; padding: 0.3rem 0.8rem; color: #333;
                     border-left: 3px solid #ccc; background: #fafafa; white-space: pre-wrap; }
footer { margin-top: 2rem; color: #666; font-size: 0.85em; }
@media (prefers-color-scheme: dark) {
  body { color: #e8e8e8; background: #161616; }
  blockquote.passage { color: #ddd; background: #222; border-color: #444; }
  .evidence { color: #e8e8e8; background: #2b2716; border-color: #5c5432; }
  mark { background: #5c5020; color: #fff; }
  ol.sources > li:target { background: #3a3320; }
}
"""


def render_html(report: Report) -> str:
    """The whole page as one string."""
    title = html.escape(report.topic)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<main>\n{report_body(report)}</main>\n"
        f"{_footer(report)}\n</body>\n</html>\n"
    )


def report_body(report: Report) -> str:
    """The report's text and its Sources, as HTML (the page's ``main``; the UI's report)."""
    # The Sources list is built in code as the last "## Sources" section; a heading such as
    # "## Sources of energy" in the body is not it.
    body_markdown, found, _listed = report.markdown.rpartition("\n## Sources\n")
    if not found:
        body_markdown = report.markdown
    sources = report.cited_sources()
    known = {source.number: source for source in sources}
    body = markdown_to_html(body_markdown, set(known), Evidence(report.citations, known))
    return f"{body}\n{_sources_section(sources, report.citations)}"


class Evidence:
    """The report's citations, looked up by number and the words of their sentence."""

    def __init__(self, citations: list[Citation], sources: dict[int, SourceRef]) -> None:
        self.sources = sources
        self.by_number: dict[int, list[tuple[int, Citation]]] = {}
        for index, citation in enumerate(citations):
            self.by_number.setdefault(citation.number, []).append((index, citation))

    def find(self, number: int, before: list[str]) -> tuple[int, Citation] | None:
        """The citation of ``number`` whose sentence best matches the words before it."""
        candidates = self.by_number.get(number) or []
        context = set(before[-SENTENCE_WINDOW:])

        def overlap(entry: tuple[int, Citation]) -> float:
            words = set(_WORDS.findall(entry[1].sentence.lower()))
            return len(words & context) / max(len(words), 1)

        best = max(candidates, key=overlap, default=None)
        return best if best is not None and overlap(best) >= 0.5 else None


def markdown_to_html(markdown: str, citable: set[int], evidence: Evidence | None = None) -> str:
    """Markdown → HTML with raw HTML escaped and ``[n]`` turned into links to #source-n,
    each showing the passage it rests on when ``evidence`` knows it."""
    from markdown_it import MarkdownIt  # installed with rich

    engine = MarkdownIt("commonmark", {"html": False, "linkify": False})
    engine.core.ruler.after("block", "identifiers", _keep_identifiers)
    tokens = engine.parse(_fence_sessions(markdown))
    for token in tokens:
        if token.type == "inline" and token.children:
            children = _merged_text(token.children)
            token.children = _link_citations(children, citable, evidence)
    rendered: str = engine.renderer.render(tokens, engine.options, {})
    return rendered


# A Python session quoted in prose: ">>> " would open three nested blockquotes and fold
# the session onto one line, so runs of prompt lines are kept as a code block instead.
_SESSION_LINE = re.compile(r"^ {0,3}(>>>|\.\.\.)( |$)")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
# "__annotations__" or "_private": underscores that open or close a name are not emphasis.
_NAME_UNDERSCORES = re.compile(r"(?<![\\\w])_{2,}(?=\w)|(?<=\w)_{2,}(?!\w)")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


def _fence_sessions(markdown: str) -> str:
    """Prompt lines, and the output lines up to the next blank line, as a pycon block."""
    out: list[str] = []
    in_fence = in_session = False
    for line in markdown.split("\n"):
        if _FENCE.match(line) and not in_session:
            in_fence = not in_fence
        prompt = not in_fence and bool(_SESSION_LINE.match(line))
        session = prompt or (in_session and bool(line.strip()))
        if session and not in_session:
            out.append("```pycon")
        elif in_session and not session:
            out.append("```")
        in_session = session
        out.append(line.lstrip() if prompt else line)
    if in_session:
        out.append("```")
    return "\n".join(out)


def _keep_identifiers(state: Any) -> None:
    """A markdown-it core rule: underscores around a name (``__doc__``) stay underscores,
    outside code spans; the parser would otherwise read them as bold or italic."""
    for token in state.tokens:
        if token.type == "inline":
            token.content = _escape_names(token.content)


def _escape_names(text: str) -> str:
    def escaped(part: str) -> str:
        return _NAME_UNDERSCORES.sub(lambda m: m.group(0).replace("_", "\\_"), part)

    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out += [escaped(text[last : span.start()]), span.group(0)]
        last = span.end()
    out.append(escaped(text[last:]))
    return "".join(out)


def _link_citations(children: list[Any], citable: set[int], evidence: Evidence | None) -> list[Any]:
    from markdown_it.token import Token

    out: list[Any] = []
    inside_link = 0
    said: list[str] = []  # the words since the last citation: the sentence it belongs to
    cited_last = False
    for child in children:
        inside_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        if child.type != "text" or inside_link or not CITATION.search(child.content):
            said, cited_last = _heard(said, cited_last, child.content)
            out.append(_text(child.content) if child.type == "text" else child)
            continue
        last = 0
        for match in CITATION.finditer(child.content):
            out.append(_text(child.content[last : match.start()]))
            said, cited_last = _heard(said, cited_last, child.content[last : match.start()])
            number = int(match.group(1))
            if number in citable:
                found = evidence.find(number, said) if evidence else None
                out.append(Token("html_inline", "", 0, content=_anchor(number, found, evidence)))
            else:
                out.append(_text(match.group(0)))
            cited_last = True
            last = match.end()
        out.append(_text(child.content[last:]))
        said, cited_last = _heard(said, cited_last, child.content[last:])
    return out


def _merged_text(children: list[Any]) -> list[Any]:
    """Adjacent text tokens joined: the parser splits text at brackets ("[", "unsupported]")."""
    merged: list[Any] = []
    for child in children:
        if child.type == "text" and merged and merged[-1].type == "text":
            merged[-1] = _text_token(merged[-1].content + child.content)
        else:
            merged.append(child)
    return merged


def _heard(said: list[str], cited_last: bool, text: str) -> tuple[list[str], bool]:
    """Words after a citation begin the next sentence; citations side by side share one."""
    words = _WORDS.findall(text.lower())
    if not words:
        return said, cited_last
    return (words if cited_last else said + words), False


def _anchor(number: int, found: tuple[int, Citation] | None, evidence: Evidence | None) -> str:
    link = f'<a class="cite" href="#source-{number}" title="Source {number}"'
    if found is None or evidence is None:
        return f"{link}>[{number}]</a>"
    index, citation = found
    source = evidence.sources[number]
    title = html.escape(source.title or source.url)
    return (
        f'<span class="cited">{link} aria-describedby="ev-{index}">[{number}]</a>'
        f'<span class="evidence" role="tooltip" id="ev-{index}">'
        f"<q>{html.escape(citation.quote)}</q><cite>[{number}] {title}</cite></span></span>"
    )


UNSUPPORTED = (
    '<span class="unsupported" title="No source ponder read supports this sentence">'
    "unsupported</span>"
)


def _text_token(content: str) -> Any:
    from markdown_it.token import Token

    return Token("text", "", 0, content=content)


def _text(content: str) -> Any:
    """A text token; the check's ``[unsupported]`` mark becomes a labelled badge."""
    from markdown_it.token import Token

    if MARK not in content:
        return _text_token(content)
    group = Token("html_inline", "", 0, content="")
    parts = content.split(MARK)
    group.content = UNSUPPORTED.join(html.escape(part, quote=False) for part in parts)
    return group


def _sources_section(sources: list[SourceRef], citations: list[Citation]) -> str:
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
    spans = [(c.passage, c.start, c.end) for c in citations if c.number == source.number]
    passages = (
        "\n".join(
            f'<blockquote class="passage">{_marked(passage, index, spans)}</blockquote>'
            for index, passage in enumerate(source.passages)
            if passage.strip()
        )
        or "<p><em>No passage was kept for this source.</em></p>"
    )
    return (
        f'<li id="source-{source.number}" value="{source.number}">{link} '
        f'<span class="origin">({origin})</span>\n'
        f"<details open><summary>What was read</summary>\n{passages}\n</details></li>"
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


def _footer(report: Report) -> str:
    stats = report.stats
    facts = (
        f"{stats.rounds} round(s) · {stats.llm_calls} model calls · "
        f"{stats.prompt_tokens + stats.completion_tokens:,} tokens · "
        f"{stats.wall_seconds:.0f}s · run {report.thread_id}"
    )
    return f"<footer>Written by ponder · {html.escape(facts)}</footer>"
