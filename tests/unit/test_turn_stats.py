"""A later turn of a thread counts its own cost: the thread's statistics less the earlier
turns', whatever the reducer adds up (numbers, per-host calls, warnings)."""

from __future__ import annotations

from ponder.core.stats import merge_stats, since


def test_a_turns_cost_is_the_thread_total_less_the_turns_before() -> None:
    first = {"llm_calls": 4, "host_calls": {"a": 4}, "warnings": ["slow"], "extractive": False}
    second = {"llm_calls": 3, "host_calls": {"a": 1, "b": 2}, "warnings": ["odd"]}
    total = merge_stats(first, second)
    assert since(total, first) == {
        "llm_calls": 3,
        "host_calls": {"a": 1, "b": 2},
        "warnings": ["odd"],
        "extractive": False,
    }
    assert since(total, None) == total
