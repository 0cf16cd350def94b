"""An extractive report, for when the model's prose is unusable.

It is built in code from what the run really holds: the cited findings of the summary and
short quotes from the sources most relevant to the question, each with its citation, under
a visible note that says the report is extractive. Even a model that cannot write prose
then yields a readable, correct, cited report.
"""

from __future__ import annotations

from ponder.services import guard
from ponder.services.citations import cited_numbers, defuse
from ponder.services.reader import bm25_scores
from ponder.services.sources import Source
from ponder.services.vetting import is_reading_note
from ponder.services.words import shares_content

NOTE = (
    "*Extractive report: the model's own text was unusable, so this report lists the cited "
    "findings and quotes the most relevant sources directly.*"
)
QUOTES = 4
QUOTE_CHARS = 320


def extractive_body(topic: str, notes: str, sources: list[Source]) -> str:
    """Markdown body: the note, the cited findings, then quotes, every claim cited."""
    parts = [NOTE]
    findings = cited_findings(notes, topic)
    if findings:
        parts.append("## Findings\n\n" + "\n".join(findings))
    chosen = most_relevant(sources, topic, QUOTES)
    shared = boilerplate(sources)
    quotes = [q for q in (quote(source, topic, shared) for source in chosen) if q]
    if quotes:
        parts.append("## From the sources\n\n" + "\n\n".join(quotes))
    return "\n\n".join(parts) + "\n"


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
        key = " ".join(line.lower().split())
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


def most_relevant(sources: list[Source], topic: str, limit: int) -> list[Source]:
    """The sources whose read passages best match the topic (BM25), best first."""
    texts = [f"{s['title']}\n" + "\n".join(s["passages"]) for s in sources]
    scores = bm25_scores(texts, topic)
    ranked = sorted(zip(scores, range(len(sources)), strict=True), key=lambda p: (-p[0], p[1]))
    return [sources[i] for _, i in ranked[:limit]]


def boilerplate(sources: list[Source]) -> set[str]:
    """Lines found in more than one source: headers, footers, notices — never the answer."""
    seen: dict[str, int] = {}
    for source in sources:
        for line in {_line_key(x) for p in source["passages"] for x in p.splitlines()}:
            if line:
                seen[line] = seen.get(line, 0) + 1
    return {line for line, count in seen.items() if count > 1}


def quote(source: Source, topic: str, shared: set[str] | None = None) -> str:
    """A short quote of the source's passage most relevant to the topic, with its citation.

    Candidates are runs of whole lines (so a quote starts where a line of the page does),
    never across two passages, without lines shared with other sources.
    """
    windows = [
        window
        for passage in source["passages"]
        for window in _windows(
            [x.strip() for x in passage.splitlines() if x.strip() and x.strip() != "…"],
            shared or set(),
        )
    ]
    if not windows:
        return ""
    # No length normalisation: a window's tail is a shorter window that must not win by it.
    scores = bm25_scores(windows, topic, b=0.0)
    best = max(range(len(windows)), key=lambda i: (scores[i], -i))
    excerpt = defuse(" ".join(windows[best].split()))
    if len(excerpt) > QUOTE_CHARS:
        excerpt = excerpt[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
    title = " ".join((source["title"] or source["url"]).split())
    return f"> {excerpt}\n>\n> — {title} [{source['number']}]"


def _windows(lines: list[str], shared: set[str]) -> list[str]:
    """Runs of consecutive lines of about QUOTE_CHARS, each starting at a line."""
    kept = [line for line in lines if _line_key(line) not in shared]
    windows = []
    for start in range(len(kept)):
        text = ""
        for line in kept[start:]:
            if text and len(text) + len(line) > QUOTE_CHARS:
                break
            text = f"{text} {line}".strip()
        windows.append(text)
    return windows


def _line_key(line: str) -> str:
    return " ".join(line.lower().split())
