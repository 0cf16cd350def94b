"""Assemble a final Markdown report: title, checked citations, exact Sources list."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ponder.core.sources import Source
from ponder.services.report.extractive import extractive_body
from ponder.services.report.support import Evidence
from ponder.services.report.verify import Checked, verify
from ponder.services.research.aspects import Aspect
from ponder.services.text.citations import remove_invalid, renumber, sources_section

# A line that is only a heading such as "## Sources", "**References:**" or "Bibliography".
_SOURCES_HEADING = re.compile(
    r"(?im)^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?[ \t]*"
    r"(?:sources|references|bibliography|works cited)[ \t]*:?[ \t]*(?:\*\*)?[ \t]*:?[ \t]*$"
)

# A heading with nothing under it before the next heading or the end.
_EMPTY_SECTION = re.compile(r"(?m)^#{2,6}[ \t][^\n]*\n(?:[ \t]*\n)*(?=#{1,6}[ \t]|\Z)")


@dataclass
class ComposedReport:
    markdown: str
    cited: list[Source]
    citations_removed: int
    extractive: bool
    checked: Checked = field(default_factory=lambda: Checked(""))
    citations: list[dict[str, Any]] = field(default_factory=list)  # sentence → source → span


def compose_report(
    topic: str,
    body: str,
    notes: str,
    sources: list[Source],
    *,
    aspects: Sequence[Aspect],
    strict: bool = False,
    evidence: Evidence | None = None,
    nearness: Mapping[int, float] | None = None,
) -> ComposedReport:
    """Check the written body's citations against what was read; when no sentence of it
    rests on a source (or it is empty: the model's text was rejected), write an extractive
    report from ``notes`` and ``sources`` (quoted on the question and its ``aspects``)
    instead (its quotes chosen by meaning beside words given the sources' ``nearness``).

    A model-written source list is cut (the list is built in code from what is cited).
    """
    evidence = evidence or Evidence(sources)
    valid = [s["number"] for s in sources]
    text, removed = remove_invalid(_cut_source_list(body), valid)
    checked = verify(text, evidence, strict=strict, topic=topic)
    extractive = not checked.grounded
    if extractive:
        quoted = extractive_body(topic, notes, sources, aspects=aspects, nearness=nearness)
        text, extra = remove_invalid(quoted, valid)
        checked = verify(text, evidence, strict=True, only_cited=True)
        checked.text = _EMPTY_SECTION.sub("", checked.text)  # all its lines unsupported
        removed += extra
    title, text = _split_title(checked.text, topic)
    text, cited = renumber(text, sources)
    parts = [f"# {title}", "", text.strip(), ""]
    if cited:
        parts.append(sources_section(cited))
    return ComposedReport(
        "\n".join(parts).strip() + "\n",
        cited,
        removed + checked.removed,
        extractive,
        checked,
        _citations(checked, cited, sources),
    )


def _citations(
    checked: Checked, cited: list[Source], sources: list[Source]
) -> list[dict[str, Any]]:
    """Each citation of the report in its own numbering, with the span it rests on."""
    registry = {s["number"]: s for s in sources}
    number_of = {_key(s): s["number"] for s in cited}
    records = []
    for entry in checked.citations:
        source = registry.get(entry.number)
        if source is None or _key(source) not in number_of:
            continue
        records.append(
            {
                "sentence": entry.sentence,
                "number": number_of[_key(source)],
                "url": source["url"],
                "passage": entry.span.passage,
                "start": entry.span.start,
                "end": entry.span.end,
                "quote": entry.quote,
                "support": round(entry.score, 3),
            }
        )
    return records


def _key(source: Source) -> str:
    return source["url"]


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
