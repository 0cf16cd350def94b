"""A warning repeated for other queries is one warning with its count, wherever it shows."""

from __future__ import annotations

from ponder.core.events import ProgressEvent
from ponder.core.warnings import collapse, shape
from ponder.interfaces.cli.progress import ProgressState

FAILED = "Every search backend failed for {!r} — duckduckgo: DNS error for https://a.example/{}"


def test_warnings_that_differ_only_in_their_query_are_one_with_a_count() -> None:
    messages = [FAILED.format(q, n) for n, q in enumerate(["tides", "spring tides", "moon"])]
    messages.insert(1, "Semantic search is off for this run, keyword search goes on: no model")
    assert collapse(messages) == [
        FAILED.format("tides", 0) + " (and 2 more like it)",
        "Semantic search is off for this run, keyword search goes on: no model",
    ]
    assert collapse([*collapse(messages), FAILED.format("neap", 9)])[0].endswith(
        "(and 3 more like it)"
    ), "collapsed twice, the counts add up"


def test_different_warnings_stay_apart() -> None:
    assert shape("Could not read https://a.example/1: timed out") != shape(
        "Could not read https://a.example/1: too large"
    )


def test_the_terminal_prints_a_warning_once_then_counts_it() -> None:
    state = ProgressState()
    printed = []
    for query in ("tides", "spring tides", "moon"):
        message = FAILED.format(query, 1)
        event = ProgressEvent(kind="warning", data={"message": message, "shape": shape(message)})
        printed.append(state.apply(event))
    assert printed == [FAILED.format("tides", 1), None, None]
    assert state.repeated() == [FAILED.format("tides", 1) + " (and 2 more like it)"]
