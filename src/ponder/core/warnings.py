"""The same warning, repeated for other queries, said once with a count.

A failing search fails for every query of every round: "Search for 'tides' returned
nothing." thirty times over is one fact. Two warnings are the same when they differ only
in what varies from query to query — quoted text, addresses, numbers — and they are shown
as the first of them followed by "(and 29 more like it)", in the terminal, the report, the
JSON and the web page alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# What varies between two instances of one warning: quoted text, a URL, a number.
_VARYING = re.compile(r"'[^'\n]{0,300}'|\"[^\"\n]{0,300}\"|“[^”\n]{0,300}”|https?://\S+|\d+")
_COUNTED = re.compile(r" \(and \d+ more like it\)$")


def shape(message: str) -> str:
    """What ``message`` says, without what varies from one query to the next."""
    return _VARYING.sub("…", _COUNTED.sub("", message))


def collapse(messages: Iterable[str]) -> list[str]:
    """Each warning once, in order of first appearance, those repeated with their count."""
    firsts: dict[str, str] = {}
    times: dict[str, int] = {}
    for message in messages:
        key = shape(message)
        firsts.setdefault(key, _COUNTED.sub("", message))
        times[key] = times.get(key, 0) + _times(message)
    return [
        firsts[key] if times[key] == 1 else f"{firsts[key]} (and {times[key] - 1} more like it)"
        for key in firsts
    ]


def _times(message: str) -> int:
    """How many warnings ``message`` stands for (a collapsed one counts its repeats)."""
    found = _COUNTED.search(message)
    return 1 + (int(re.findall(r"\d+", found.group())[0]) if found else 0)
