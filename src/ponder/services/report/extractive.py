"""An extractive report, for when the model's prose is unusable.

It is built in code from what the run really holds: the cited findings of the summary and
short quotes from the sources most relevant to the question, each with its citation, under
a visible note that says the report is extractive. Even a model that cannot write prose
then yields a readable, correct, cited report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ponder.core.sources import Source
from ponder.services.model import guard
from ponder.services.report.support import line_key, shared_lines
from ponder.services.research.aspects import aspects_of
from ponder.services.research.vetting import is_reading_note
from ponder.services.text.citations import cited_numbers, defuse, remove_invalid
from ponder.services.text.passages import bm25_scores
from ponder.services.text.words import shares_content, stems

NOTE = (
    "*Extractive report: the model's own text was unusable, so this report lists the cited "
    "findings and quotes the most relevant sources directly.*"
)
QUOTES = 4
QUOTE_CHARS = 320
COVERED = 0.6  # a finding whose words a written text holds this much of is in that text
# A section label: capitals alone, as pydoc and man pages head their sections.
_LABEL = re.compile(r"[A-Z][A-Z0-9 ,:&/()'-]*[A-Z:)]")
_ADDRESS = re.compile(r"(?:https?://|www\.)\S+|<\S+@\S+>")
CUT = "*The model's text was cut here, where it began to repeat {what}.{rest}*"
REST = (
    " What follows is what it had not covered: findings from the research notes and quotes "
    "of sources it did not cite."
)
COMPLETION_QUOTES = 2


def extractive_body(topic: str, notes: str, sources: list[Source]) -> str:
    """Markdown body: the note, the cited findings, then quotes, every claim cited."""
    parts = [NOTE]
    findings = cited_findings(notes, topic)
    if findings:
        parts.append("## Findings\n\n" + "\n".join(findings))
    chosen = quoted_sources(sources, topic, QUOTES)
    shared = boilerplate(sources)
    # Few sources get several quotes each, so one relevant page still yields a full report.
    each = -(-QUOTES // len(chosen)) if chosen else 0
    quotes = [q for q in (quote(s, on, shared | lead(s), each) for s, on in chosen) if q]
    if quotes:
        parts.append("## From the sources\n\n" + "\n\n".join(quotes))
    return "\n\n".join(parts) + "\n"


def completion(
    written: str, notes: str, topic: str, problem: str, sources: Sequence[Source] = ()
) -> str:
    """``written`` (a text the model broke off) completed, under a visible note, with the
    cited findings of the notes it does not cover and quotes of the most relevant
    ``sources`` it cites nothing of: a weak model's notes may hold little, and the page
    that answers may be known only by what was read of it."""
    have = stems(written)
    missing = [
        line
        for line in cited_findings(notes, topic)
        if not line.startswith("#") and not _covered(stems(line), have)
    ]
    cited = set(cited_numbers(written)) | {n for line in missing for n in cited_numbers(line)}
    quotes = uncited_quotes(list(sources), topic, cited)
    what = "its instructions" if "prompt" in problem else "itself"
    note = CUT.format(what=what, rest=REST if missing or quotes else "")
    added = (["\n".join(missing)] if missing else []) + quotes
    return "\n\n".join([written.rstrip(), note, *added])


def uncited_quotes(sources: list[Source], topic: str, cited: set[int]) -> list[str]:
    """One quote from each of the most relevant sources (at most ``COMPLETION_QUOTES``)
    whose numbers are not in ``cited``."""
    shared = boilerplate(sources)
    chosen = [
        (s, on) for s, on in quoted_sources(sources, topic, QUOTES) if s["number"] not in cited
    ]
    quoted = (quote(s, on, shared | lead(s)) for s, on in chosen[:COMPLETION_QUOTES])
    return [q for q in quoted if q]


def _covered(finding: set[str], text: set[str]) -> bool:
    return not finding or len(finding & text) >= COVERED * len(finding)


def cited_findings(notes: str, topic: str) -> list[str]:
    """Lines of the notes worth showing: headings, and cited findings about the topic (or
    their section's sub-topic), each once.

    The bar is higher than for the summary: this report exists because the model is weak,
    and a finding that names nothing the question names reads as noise here.
    """
    kept: list[str] = []
    seen: set[str] = set()
    section = ""
    for raw in notes.splitlines():
        line = raw.strip()
        # One finding once, whatever it cites: its citations are checked (and may go) later.
        key = " ".join(remove_invalid(line, ())[0].lower().split())
        if not line or key in seen or is_reading_note(line) or guard.echoes_prompt(line):
            continue
        if line.startswith("#"):
            section = line.lstrip("# ")
            line = "### " + section
        elif not cited_numbers(line) or not shares_content(line, [topic, section]):
            continue
        seen.add(key)
        kept.append(line if line.startswith(("#", "- ")) else f"- {line}")
    return _without_empty_headings(kept)


def _without_empty_headings(lines: list[str]) -> list[str]:
    return [
        line
        for i, line in enumerate(lines)
        if not line.startswith("#") or (i + 1 < len(lines) and not lines[i + 1].startswith("#"))
    ]


def most_relevant(
    sources: list[Source], topic: str, limit: int, at_least: float = float("-inf")
) -> list[Source]:
    """The sources whose read passages best match the topic (BM25), best first; only those
    scoring ``at_least``."""
    scores = bm25_scores([_text(s) for s in sources], topic)
    ranked = sorted(zip(scores, range(len(sources)), strict=True), key=lambda p: (-p[0], p[1]))
    return [sources[i] for score, i in ranked[:limit] if score >= at_least]


def _text(source: Source) -> str:
    return f"{source['title']}\n" + "\n".join(source["passages"])


def quoted_sources(sources: list[Source], topic: str, limit: int) -> list[tuple[Source, str]]:
    """The sources to quote and what to quote them on: the first source found, then for
    each part of a joined question the source most about that part, then the most relevant
    to the whole question, up to ``limit``.

    The first source found is the first result of the question's own search (round 1
    searches the question first), ranked on the whole collection. Relevance here is judged
    on the few pages read, where a word of every pydoc page ("__repr__") looks rare: for
    "classes with automatically generated __init__ and __repr__" it put tarfile's page
    first and dataclasses', the search's first, fourth. A part's words can be everywhere
    too, so the first found is quoted before the parts. A part whose best source is quoted
    already gets the next source about it, or it would go unquoted ("compress it with
    gzip", when tarfile's page is best for both parts).
    """
    ranked = most_relevant(sources, topic, limit)
    picks = [(min(sources, key=lambda s: s["number"]), topic)] if sources else []
    for aspect in aspects_of(topic):
        about = most_relevant(sources, aspect.query, len(sources), at_least=1e-9)
        fresh = [s for s in about if all(s is not p for p, _ in picks)]
        if fresh and (fresh[0] is about[0] or aspect.in_text(_text(fresh[0]))):
            picks.append((fresh[0], aspect.query))
    for source in ranked:
        if all(source is not s for s, _ in picks):
            picks.append((source, topic))
    return picks[:limit]


def boilerplate(sources: list[Source]) -> set[str]:
    """Lines found in more than one source: headers, footers, notices — never the answer."""
    return shared_lines(sources, 2)


def lead(source: Source) -> set[str]:
    """The lines every passage of the source opens with (as ``line_key`` gives them): the
    page's head — its title, name, address, a generated-page notice — that a search put
    before each passage it found, and never what answers."""
    passages = list(dict.fromkeys(source["passages"]))  # one passage read twice has no lead
    if len(passages) < 2:
        return set()
    common: set[str] = set()
    for lines in zip(*(p.splitlines() for p in passages), strict=False):
        keys = {line_key(line) for line in lines}
        if len(keys) > 1:
            break
        common |= keys - {""}
    return common


def quote(source: Source, topic: str, shared: set[str] | None = None, limit: int = 1) -> str:
    """A block quoting up to ``limit`` short excerpts of the source's passages most relevant
    to the topic, best first and no line twice (passages may overlap), under one citation.

    Candidates are runs of whole lines (so a quote starts where a line of the page does),
    never across two passages or two sections, without lines shared with other sources.
    """
    windows = [
        window
        for number, passage in enumerate(source["passages"])
        for window in _windows(number, passage, shared or set())
    ]
    if not windows:
        return ""
    # No length normalisation: a window's tail is a shorter window that must not win by it.
    # A link's words are its address, not what the page says ("docs.python.org/…/json.html").
    scores = bm25_scores([_ADDRESS.sub(" ", w.text) for w in windows], topic, b=0.0)
    ranked = sorted(range(len(windows)), key=lambda i: (-scores[i], windows[i].preference))
    quoted: set[str] = set()  # by text: two passages of a source may overlap
    excerpts: list[str] = []
    for i in ranked:
        window = windows[i]
        if len(excerpts) == limit or (scores[i] <= 0 and excerpts):  # the first always shows
            break
        if quoted.intersection(window.lines):
            continue
        quoted.update(window.lines)
        excerpt = _inline(defuse(" ".join(window.text.split())))
        if len(excerpt) > QUOTE_CHARS:
            excerpt = excerpt[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
        excerpts.append(f"> {excerpt}\n>\n")
    title = " ".join((source["title"] or source["url"]).split())
    return "".join(excerpts) + f"> — {title} [{source['number']}]"


# What makes a line a block in Markdown: a heading, a list item, a rule, a quote, a fence.
_HEADING = re.compile(r"#{1,6}\s+")
_BLOCK_START = re.compile(r"(?:[-+*=>|`~]|\d{1,9}[.)])")


def _inline(excerpt: str) -> str:
    """A quote is one paragraph of the page's words: a page's "# Tides" would otherwise
    turn the whole quote into a heading, and its "1." into a list."""
    excerpt = _HEADING.sub("", excerpt, count=1) if _HEADING.match(excerpt) else excerpt
    start = _BLOCK_START.match(excerpt)
    return excerpt[: start.end() - 1] + "\\" + excerpt[start.end() - 1 :] if start else excerpt


@dataclass(frozen=True)
class Window:
    passage: int  # which of the source's passages
    start: int  # the line of the passage it starts at
    lines: tuple[str, ...]  # the lines it quotes, as line_key gives them
    text: str
    opens_paragraph: bool

    @property
    def preference(self) -> tuple[int, bool, int]:
        """Among equally relevant windows: the best-ranked passage, a quote that opens a
        paragraph (the signature or heading above a text), then the one with least lead-in."""
        return (self.passage, not self.opens_paragraph, -self.start)


def _windows(number: int, passage: str, shared: set[str]) -> list[Window]:
    """Runs of consecutive lines of about QUOTE_CHARS, one starting at each line.

    Lines without a letter or digit (blank, "|", "----") only separate paragraphs. A label
    (a line of capitals alone: NAME, MODULE REFERENCE, FUNCTIONS) begins a section: a
    window may open with it, as the heading of the text below, but never runs into the
    next one, so a page's header block (its name, its address, a generated-page notice)
    cannot ride into a quote on the words of a neighbouring section.
    """
    lines: list[str] = []
    opens: list[bool] = []
    sections: list[int] = []
    section, after_break = 0, True
    for raw in passage.splitlines():
        line = raw.strip()
        label = _LABEL.fullmatch(line) is not None
        section += label  # a label shared with other sources is not quoted, yet ends one
        if not any(c.isalnum() for c in line):
            after_break = True
        elif line_key(line) in shared:
            after_break = after_break or label
        else:
            lines.append(line)
            opens.append(after_break)
            sections.append(section)
            after_break = False
    windows = []
    for start in range(len(lines)):
        text, end = "", start
        for line, in_section in zip(lines[start:], sections[start:], strict=True):
            if text and (len(text) + len(line) > QUOTE_CHARS or in_section != sections[start]):
                break
            text = f"{text} {line}".strip()
            end += 1
        keys = tuple(line_key(line) for line in lines[start:end])
        windows.append(Window(number, start, keys, text, opens[start]))
    return windows
