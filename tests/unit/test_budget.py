"""The budget's arithmetic: when another round no longer fits before the report, and how
much the report may write, from what a run spent (its statistics)."""

from __future__ import annotations

import pytest

from ponder.core.errors import ConfigurationError
from ponder.services.research.budget import (
    Spent,
    budget_spent,
    model_speed,
    report_tokens,
    said,
    time_left,
)
from ponder.settings.configuration import Configuration

# Two rounds in 40 s of node time and 3,000 tokens: 6 calls of 5 s, 600 tokens written.
TWO_ROUNDS = Spent(seconds=40.0, tokens=3000, rounds=2, calls=6, model_seconds=30.0, written=600)


def settings(**values: object) -> Configuration:
    return Configuration.create(model="m", **values)  # type: ignore[arg-type]


def test_without_a_budget_or_before_a_round_nothing_ends_the_research() -> None:
    assert budget_spent(TWO_ROUNDS, settings()) is None
    first = Spent(seconds=500.0, tokens=90_000, rounds=0, calls=1, model_seconds=5, written=9)
    assert budget_spent(first, settings(time_budget=60, token_budget=2000)) is None


def test_a_time_budget_leaves_room_for_a_round_as_costly_as_any_and_the_report() -> None:
    # Six calls of 1 s plus 20 ms a token written, the longest 300 tokens.
    calls = tuple((1 + 0.02 * written, written) for written in (50, 100, 150, 200, 250, 300))
    paced = Spent(seconds=40.0, tokens=3000, rounds=2, calls=6, model_seconds=27.0,
                  written=1050, timings=calls)  # fmt: skip
    # 40 s spent, a round of 20 s × 1.25, and a report as long as the longest call: 1 + 6 s.
    needed = 40 + 25 + 7
    assert budget_spent(paced, settings(time_budget=needed - 1)) == "time"
    assert budget_spent(paced, settings(time_budget=needed + 1)) is None
    # Without timings (a run from before they were kept): a call's average time.
    assert budget_spent(TWO_ROUNDS, settings(time_budget=40 + 25 + 5 - 1)) == "time"


def test_under_a_time_budget_the_report_writes_what_the_time_left_allows() -> None:
    calls = tuple((1 + 0.02 * written, written) for written in (50, 100, 150, 200, 250, 300))
    paced = Spent(seconds=40.0, tokens=3000, rounds=2, calls=6, model_seconds=27.0,
                  written=1050, timings=calls)  # fmt: skip
    # 60 s budget: 20 s left, less a call's 1 s latency, at 20 ms a token.
    assert report_tokens(paced, settings(time_budget=60, num_predict=2048)) == 950
    assert report_tokens(paced, settings(time_budget=60, num_predict=512)) == 512
    assert report_tokens(paced, settings(time_budget=45)) == 0, "too little: from the sources"


def test_a_token_budget_leaves_room_for_a_round_and_what_the_report_reads_and_writes() -> None:
    s = settings(num_predict=512, summary_tokens=400, evidence_tokens=600)
    needed = 3000 + 1.25 * 1500 + (400 + 600 + 600 + 512)
    fits = int(needed)  # 6,987: exactly enough
    assert budget_spent(TWO_ROUNDS, s.model_copy(update={"token_budget": fits - 1})) == "tokens"
    assert budget_spent(TWO_ROUNDS, s.model_copy(update={"token_budget": fits})) is None


def test_the_report_writes_only_what_the_token_budget_has_left() -> None:
    s = settings(num_predict=1024, summary_tokens=400, evidence_tokens=600)
    assert report_tokens(TWO_ROUNDS, s) is None
    reading = 400 + 600 + 600
    roomy = s.model_copy(update={"token_budget": 3000 + reading + 5000})
    assert report_tokens(TWO_ROUNDS, roomy) == 1024
    tight = s.model_copy(update={"token_budget": 3000 + reading + 300})
    assert report_tokens(TWO_ROUNDS, tight) == 300
    spent = s.model_copy(update={"token_budget": 3000 + reading + 100})
    assert report_tokens(TWO_ROUNDS, spent) == 0, "too little for a model's report"


@pytest.mark.parametrize(
    ("given", "seconds"), [("90", 90), ("90s", 90), ("5m", 300), ("1h30m", 5400), (120, 120)]
)
def test_a_time_budget_is_read_as_a_duration(given: object, seconds: float) -> None:
    assert settings(time_budget=given).time_budget == seconds


@pytest.mark.parametrize("given", ["soon", "5 minutes", "10s", "-5m"])
def test_a_time_budget_that_is_no_usable_duration_is_refused_with_what_to_give(
    given: str,
) -> None:
    with pytest.raises(ConfigurationError, match="time_budget"):
        settings(time_budget=given)


def test_the_report_says_which_budget_ended_the_research() -> None:
    s = settings(time_budget="5m", max_loops=4)
    assert said("time", s, 2) == (
        "The time budget (5 min) ended the research after 2 of 4 round(s), leaving the "
        "report its share."
    )
    assert "token budget (30,000 tokens)" in said("tokens", settings(token_budget=30000), 1)


def test_the_models_latency_and_speed_are_fitted_to_its_calls() -> None:
    # Calls of 2 s plus 30 ms a token: the line through them gives both back.
    calls = tuple((2.0 + 0.03 * written, written) for written in (10, 50, 200, 400))
    spent = Spent(seconds=30, tokens=5000, rounds=2, calls=4, model_seconds=25, written=660,
                  timings=calls)  # fmt: skip
    latency, per_token = model_speed(spent)
    assert latency == pytest.approx(2.0) and per_token == pytest.approx(0.03)
    alike = Spent(seconds=30, tokens=5000, rounds=2, calls=2, model_seconds=6, written=20,
                  timings=((3.0, 10), (3.0, 10)))  # fmt: skip
    assert model_speed(alike) == (3.0, 0.0), "calls too alike to separate: their average"


def test_time_left_is_the_rounds_to_come_and_the_report_at_this_runs_pace() -> None:
    # Two rounds of 10 s each (4 s of it reflecting), calls of 1 s + 10 ms a token.
    calls = ((1.5, 50), (2.0, 100), (3.0, 200))
    spent = Spent(seconds=25, tokens=4000, rounds=2, calls=3, model_seconds=6.5, written=350,
                  timings=calls, round_seconds=20, reflect_seconds=8)  # fmt: skip
    report = 1.0 + 0.01 * 200  # its longest call's length at the fitted pace
    # Four rounds to come (the last without a reflection), then the report.
    assert time_left(spent, settings(max_loops=6)) == pytest.approx(4 * 10 - 4 + report)
    # A time budget of 60 s allows this round and one more: 25 + 10, then 10 more leaves
    # 15 s, and a third would need 12.5 s and the report's 3 s.
    assert time_left(spent, settings(max_loops=6, time_budget=60)) == pytest.approx(20 + report)
    assert time_left(Spent(0, 0, 0, 0, 0, 0), settings()) is None, "nothing measured yet"
