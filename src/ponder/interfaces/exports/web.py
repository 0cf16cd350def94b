"""The report as one self-contained HTML page: the page ``--format html`` has always
written for one report; for a conversation, each turn under its question, with its own
sources and evidence (their ids apart: turn 2's ``#source-1`` is ``#t2-source-1``)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from ponder.core.result import Report
from ponder.interfaces.html import html_page, render_html, report_body
from ponder.interfaces.html.sources import footer


def export_bytes(reports: Sequence[Report]) -> bytes:
    if len(reports) == 1:
        return render_html(reports[0]).encode("utf-8", "replace")
    turns = "\n".join(
        f'<section class="turn" id="t{number}">\n<h1 class="question">'
        f"{html.escape(report.topic)}</h1>\n{report_body(report, f't{number}-', deeper=1)}"
        "</section>\n"
        for number, report in enumerate(reports, start=1)
    )
    return html_page(reports[0].topic, turns, footer(reports[-1])).encode("utf-8", "replace")
