"""Markdown to HTML for a report: raw HTML escaped, Python names and sessions kept as
written, and each ``[n]`` a link to its source that shows the passage it rests on.

:func:`parse` is the one reading of a report's Markdown: markdown-it's tokens, in which
each ``[n]`` of a cited source is a ``citation`` token (its number, and the citation of
``Report.citations`` it rests on) and the check's ``[unsupported]`` mark an
``unsupported`` token. The HTML here and the exports (``interfaces/exports``) walk them."""

from __future__ import annotations

import html
import re
from typing import Any

from ponder.core.result import UNSUPPORTED_MARK as MARK
from ponder.core.result import Citation, SourceRef

CITATION = re.compile(r"\[(\d{1,4})\]")
_WORDS = re.compile(r"\w+")
SENTENCE_WINDOW = 60  # words before a citation that may belong to its sentence


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


def markdown_to_html(
    markdown: str, citable: set[int], evidence: Evidence | None = None, anchors: str = ""
) -> str:
    """Markdown → HTML with raw HTML escaped and ``[n]`` turned into links to #source-n,
    each showing the passage it rests on when ``evidence`` knows it. ``anchors``: a prefix
    of the ids (``#{anchors}source-n``), so that several reports share a page."""
    tokens = parse(markdown, citable, evidence)
    for token in tokens:
        if token.type == "table_open":
            token.attrSet("class", "written")  # the report's own: styled apart from the page's
    engine = markdown_engine()
    engine.add_render_rule("citation", _render_citation(evidence, anchors))
    engine.add_render_rule("unsupported", lambda *_args: UNSUPPORTED)
    rendered: str = engine.renderer.render(tokens, engine.options, {})
    return rendered


def parse(markdown: str, citable: set[int], evidence: Evidence | None = None) -> list[Any]:
    """The report's Markdown as markdown-it tokens, sessions fenced, names kept, and each
    ``[n]`` in ``citable`` a ``citation`` token (meta: ``number``, and ``found``: the
    (index, Citation) of ``evidence`` its sentence matches, or None)."""
    tokens: list[Any] = markdown_engine().parse(_fence_sessions(markdown))
    for token in tokens:
        if token.type == "inline" and token.children:
            children = _merged_text(token.children)
            token.children = _link_citations(children, citable, evidence)
    return tokens


def markdown_engine() -> Any:
    """The parser a report is read with (no citations: :func:`parse` adds those)."""
    from markdown_it import MarkdownIt  # installed with rich

    # CommonMark, with GFM's pipe tables: models write comparisons as tables.
    engine = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    engine.core.ruler.after("block", "identifiers", _keep_identifiers)
    return engine


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
            out.extend(_text(child.content) if child.type == "text" else [child])
            continue
        last = 0
        for match in CITATION.finditer(child.content):
            out.extend(_text(child.content[last : match.start()]))
            said, cited_last = _heard(said, cited_last, child.content[last : match.start()])
            number = int(match.group(1))
            if number in citable:
                found = evidence.find(number, said) if evidence else None
                meta = {"number": number, "found": found}
                out.append(Token("citation", "", 0, content=match.group(0), meta=meta))
            else:
                out.extend(_text(match.group(0)))
            cited_last = True
            last = match.end()
        out.extend(_text(child.content[last:]))
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


def _render_citation(evidence: Evidence | None, anchors: str) -> Any:
    def render(_renderer: Any, tokens: list[Any], index: int, *_args: Any) -> str:
        meta = tokens[index].meta
        return _anchor(meta["number"], meta["found"], evidence, anchors)

    return render


def _anchor(
    number: int, found: tuple[int, Citation] | None, evidence: Evidence | None, anchors: str
) -> str:
    link = f'<a class="cite" href="#{anchors}source-{number}" title="Source {number}"'
    if found is None or evidence is None:
        return f"{link}>[{number}]</a>"
    index, citation = found
    source = evidence.sources[number]
    title = html.escape(source.title or source.url)
    return (
        f'<span class="cited">{link} aria-describedby="{anchors}ev-{index}">[{number}]</a>'
        f'<span class="evidence" role="tooltip" id="{anchors}ev-{index}">'
        f"<q>{html.escape(citation.quote)}</q><cite>[{number}] {title}</cite></span></span>"
    )


UNSUPPORTED = (
    '<span class="unsupported" title="No source ponder read supports this sentence">'
    "unsupported</span>"
)


def _text_token(content: str) -> Any:
    from markdown_it.token import Token

    return Token("text", "", 0, content=content)


def _text(content: str) -> list[Any]:
    """Text tokens; the check's ``[unsupported]`` mark becomes a token of its own."""
    from markdown_it.token import Token

    if MARK not in content:
        return [_text_token(content)] if content else []
    out: list[Any] = []
    for number, part in enumerate(content.split(MARK)):
        if number:
            out.append(Token("unsupported", "", 0, content=MARK))
        if part:
            out.append(_text_token(part))
    return out
