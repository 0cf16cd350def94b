"""The report as one self-contained HTML page (html/): each ``[n]`` shows the passage it
rests on; a thread's turns each in a section of its own, under its question, with ids of
their own."""

from __future__ import annotations

from collections.abc import Sequence

from ponder.core.result import Report
from ponder.interfaces.html import render_html


def export_bytes(reports: Sequence[Report]) -> bytes:
    return render_html(list(reports)).encode("utf-8", "replace")
