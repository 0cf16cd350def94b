"""Run statistics: what a run cost, accumulated across nodes by a reducer."""

from __future__ import annotations

from typing import Any

_LIST_KEYS = ("warnings", "events", "call_timings")
_DICT_KEYS = ("node_seconds", "host_calls")


def merge_stats(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: add numbers, add per-node seconds and per-host calls, concatenate warnings."""
    merged: dict[str, Any] = dict(left or {})
    for key, value in (right or {}).items():
        if key in _LIST_KEYS:
            merged[key] = [*merged.get(key, []), *value]
        elif key in _DICT_KEYS:
            totals = dict(merged.get(key, {}))
            for name, seconds in value.items():
                totals[name] = round(totals.get(name, 0.0) + seconds, 6)
            merged[key] = totals
        elif isinstance(value, bool) or not isinstance(value, int | float):
            merged[key] = value
        else:
            merged[key] = merged.get(key, 0) + value
    return merged


def since(total: dict[str, Any] | None, before: dict[str, Any] | None) -> dict[str, Any]:
    """What a thread's later turn cost: its statistics ``total`` less those it had
    ``before`` (the thread's earlier turns), so each turn's report counts its own calls,
    tokens and warnings. Flags and other values are the total's."""
    own: dict[str, Any] = dict(total or {})
    for key, value in (before or {}).items():
        now = own.get(key)
        if key in _LIST_KEYS and isinstance(now, list):
            own[key] = now[len(value) :]
        elif key in _DICT_KEYS and isinstance(now, dict):
            spent = {name: round(now.get(name, 0) - value.get(name, 0), 6) for name in now}
            own[key] = {name: amount for name, amount in spent.items() if amount}
        elif _number(now) and _number(value):
            own[key] = now - value
    return own


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
