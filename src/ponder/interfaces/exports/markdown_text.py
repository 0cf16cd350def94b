"""The report as Markdown, as written: one report is its own Markdown; a thread's reports
follow one another, a rule between turns, each with its own title and Sources."""

from __future__ import annotations

from collections.abc import Sequence

from ponder.core.result import Report


def export_bytes(reports: Sequence[Report]) -> bytes:
    if len(reports) == 1:
        return reports[0].markdown.encode("utf-8", "replace")
    joined = "\n---\n\n".join(report.markdown.rstrip() + "\n" for report in reports)
    return joined.encode("utf-8", "replace")
