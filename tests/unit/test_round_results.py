"""How many results each query of a round keeps (``web_research.result_counts``)."""

from __future__ import annotations

from ponder.nodes.web_research import result_counts
from ponder.settings.configuration import Configuration

QUESTION = "How do I copy a file?"


def test_a_slot_a_round_lacks_goes_to_the_question_s_own_search() -> None:
    config = Configuration(queries_per_round=3, results_per_query=5)
    assert result_counts([QUESTION], QUESTION, config) == {QUESTION: 10}
    assert result_counts([QUESTION, "shutil"], QUESTION, config) == {QUESTION: 10, "shutil": 5}
    full = [QUESTION, "shutil", "copy2"]
    assert result_counts(full, QUESTION, config) == dict.fromkeys(full, 5)


def test_a_round_without_the_question_keeps_results_per_query_each() -> None:
    config = Configuration(queries_per_round=3, results_per_query=5)
    assert result_counts(["moon orbit"], "How do tides work?", config) == {"moon orbit": 5}


def test_no_search_asks_for_more_than_results_per_query_allows() -> None:
    config = Configuration(queries_per_round=8, results_per_query=15)
    assert result_counts([QUESTION], QUESTION, config) == {QUESTION: 20}
    spaced = "How do I\n copy   a file?"  # the round searches the question's words, spaced once
    assert result_counts([QUESTION], spaced, config) == {QUESTION: 20}
