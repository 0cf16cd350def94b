"""The change report of a watch's run, in Markdown: what a person reads in the feed, on the
page and with ``ponder watch changes``. Each entry cites and links to its evidence."""

from __future__ import annotations

import time

from ponder.services.watch.changes import CHANGED, GONE, NEW, Changes, Finding, SourceChange
from ponder.services.watch.snapshot import flat

_SOURCE_WORDS = {NEW: "New", CHANGED: "Changed", GONE: "Gone"}


def first_run(question: str, number: int, findings: int, sources: int) -> str:
    return (
        f"# {question}\n\nRun {number}: the first of this watch, {findings} finding(s) "
        f"from {sources} source(s). The next runs say what changed since.\n"
    )


def change_report(
    question: str, number: int, since: int, since_time: float, changes: Changes
) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(since_time))
    head = f"# {question}\n\nRun {number}, compared with run {since} ({when}).\n"
    if changes.nothing:
        return head + (
            "\n**Nothing changed**: the same sources, and every finding rests on the same text.\n"
        )
    parts = [head, headline(changes) + "\n"]
    if changes.new_findings:
        parts.append("## New findings\n\n" + _findings(changes.new_findings))
    if changes.gone_findings:
        parts.append(
            "## Findings that no longer hold\n\nThe text they rested on changed or is gone.\n\n"
            + _findings(changes.gone_findings)
        )
    if changes.sources:
        parts.append("## Sources that changed\n\n" + _sources(changes.sources))
    return "\n".join(parts)


def headline(changes: Changes) -> str:
    """One line: what changed, counted."""
    if changes.nothing:
        return "Nothing changed."
    counts = changes.counts()
    said = [
        f"{counts['new_findings']} new finding(s)" if counts["new_findings"] else "",
        f"{counts['gone_findings']} no longer hold(s)" if counts["gone_findings"] else "",
        f"{counts['new_sources']} new source(s)" if counts["new_sources"] else "",
        f"{counts['changed_sources']} changed" if counts["changed_sources"] else "",
        f"{counts['gone_sources']} gone" if counts["gone_sources"] else "",
    ]
    return ", ".join(part for part in said if part) + "."


def _findings(findings: list[Finding]) -> str:
    lines = []
    for finding in findings:
        quote = flat(finding.quote)
        said = " ".join(finding.sentence.split())
        # A quote found in an extractive report is its own finding: said once.
        lead = "" if said.rstrip("…") in quote else f"{said} — "
        lines.append(f"- {lead}“{quote}” ({_link(finding.title, finding.url)})")
    return "\n".join(lines) + "\n"


def _sources(sources: list[SourceChange]) -> str:
    return (
        "\n".join(
            f"- {_SOURCE_WORDS[change.kind]}: {_link(change.title, change.url)}"
            for change in sources
        )
        + "\n"
    )


def _link(title: str, url: str) -> str:
    """A page as a link; a document of the person's by its path (a browser opens no file
    from a page it got over http, and Markdown renderers drop file: links)."""
    label = (title or url).replace("[", "(").replace("]", ")")
    if url.startswith("/"):
        return f"{label}, `{url}`"
    return f"[{label}](<{url}>)"
