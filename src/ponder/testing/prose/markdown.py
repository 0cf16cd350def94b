"""A generated report as Markdown, its citations numbered as a run numbers its pages."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ponder.testing.prose.model import GeneratedReport, Part, Unit

_END = re.compile(r"[.!?:;]+$")


def render(report: GeneratedReport, numbers: Mapping[int, int]) -> str:
    """The report, citing page ``i`` as ``[numbers[i]]``."""
    return "\n\n".join(_part(part, numbers) for part in report.parts) + "\n"


def cite(unit: Unit, numbers: Mapping[int, int]) -> str:
    """The unit's text with its citation before the closing punctuation ("… list [2].")."""
    number = numbers.get(unit.cited) if unit.cited is not None else None
    if number is None:  # uncited, or a page the run never showed the model
        return unit.text
    mark = f"[{number}]"
    end = _END.search(unit.text)
    if end is None:
        return f"{unit.text} {mark}"
    return f"{unit.text[: end.start()]} {mark}{unit.text[end.start() :]}"


def _part(part: Part, numbers: Mapping[int, int]) -> str:
    if part.kind == "heading":
        return "#" * part.level + " " + part.text
    if part.kind == "para":
        return " ".join(cite(u, numbers) for u in part.units)
    if part.kind == "bullets":
        return "\n".join(f"- {cite(u, numbers)}" for u in part.units)
    if part.kind == "numbers":
        return "\n".join(f"{i}. {cite(u, numbers)}" for i, u in enumerate(part.units, 1))
    if part.kind == "outline":
        return "\n".join(f"{i}. {item}" for i, item in enumerate(part.text.splitlines(), 1))
    if part.kind == "table":
        return _table(part, numbers)
    return f"```{part.language}\n{part.text}\n```"


def _table(part: Part, numbers: Mapping[int, int]) -> str:
    lines = [_row(list(part.header)), "|" + "---|" * len(part.header)]
    for unit in part.units:
        cells = unit.text.split("\t")
        last = Unit(cells[-1], unit.page, unit.cited)
        lines.append(_row([*cells[:-1], cite(last, numbers)]))
    return "\n".join(lines)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
