"""The report as Markdown: its own text for one report; for a conversation, each turn under
its question, the report's headings one level down (found by the parser, not by pattern)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ponder.core.result import Report
from ponder.interfaces.html.markdown import markdown_engine


def export_bytes(reports: Sequence[Report]) -> bytes:
    if len(reports) == 1:
        return reports[0].markdown.encode("utf-8", "replace")
    parts = [
        f"# {_one_line(report.topic)}\n\n{deeper(report.markdown).strip()}\n" for report in reports
    ]
    return "\n---\n\n".join(parts).encode("utf-8", "replace")


def deeper(markdown: str) -> str:
    """``markdown`` with each heading one level down (``#`` → ``##``; six stays six)."""
    lines = markdown.split("\n")
    tokens: list[Any] = markdown_engine().parse(markdown)
    for token in tokens:
        if token.type != "heading_open" or token.map is None:
            continue
        level = min(int(token.tag[1]) + 1, 6)
        start, end = token.map
        if token.markup.startswith("#"):  # ATX: "## Title"
            text = lines[start].lstrip()
            lines[start] = "#" * level + text[len(token.markup) :]
        else:  # setext: the text's lines, then a line of = or -
            text = " ".join(line.strip() for line in lines[start : end - 1])
            lines[start:end] = [f"{'#' * level} {text}"] + [""] * (end - start - 1)
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(text.split())
