"""Assemble a final Markdown report: title, checked citations, exact Sources list."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ponder.services.citations import cited_numbers, remove_invalid, renumber, sources_section
from ponder.services.extractive import extractive_body
from ponder.services.sources import Source

# A line that is only a heading such as "## Sources", "**References:**" or "Bibliography".
_SOURCES_HEADING = re.compile(
    r"(?im)^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?[ \t]*"
    r"(?:sources|references|bibliography|works cited)[ \t]*:?[ \t]*(?:\*\*)?[ \t]*:?[ \t]*$"
)


@dataclass
class ComposedReport:
    markdown: str
    cited: list[Source]
    citations_removed: int
    extractive: bool


def compose_report(topic: str, body: str, notes: str, sources: list[Source]) -> ComposedReport:
    """Check the written body's citations; when it has none (or is empty: the model's text
    was rejected), write an extractive report from ``notes`` and ``sources`` instead.

    A model-written source list is cut (the list is built in code from what is cited).
    """
    valid = [s["number"] for s in sources]
    text = _cut_source_list(body)
    text, removed = remove_invalid(text, valid)
    extractive = not cited_numbers(text)
    if extractive:
        text, extra = remove_invalid(extractive_body(topic, notes, sources), valid)
        removed += extra
    title, text = _split_title(text, topic)
    text, cited = renumber(text, sources)
    parts = [f"# {title}", "", text.strip(), ""]
    if cited:
        parts.append(sources_section(cited))
    return ComposedReport("\n".join(parts).strip() + "\n", cited, removed, extractive)


def _cut_source_list(text: str) -> str:
    """Cut a model-written source list: from the last heading that is only 'Sources' on."""
    matches = list(_SOURCES_HEADING.finditer(text))
    return text[: matches[-1].start()].rstrip() if matches else text


def _split_title(text: str, topic: str) -> tuple[str, str]:
    lines = text.strip().splitlines()
    if lines and lines[0].lstrip().startswith("#"):
        title = lines[0].lstrip("# ").strip()
        rest = "\n".join(lines[1:])
        if title:
            return title, rest
    return _title_from_topic(topic), text


def _title_from_topic(topic: str) -> str:
    clean = " ".join(topic.split()).rstrip("?.!")
    return (clean[:1].upper() + clean[1:])[:120] or "Research report"
