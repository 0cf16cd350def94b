"""The deep pipeline's budgets: how many researchers a round has room for, what each may
spend, and when a researcher's allowance leaves no room for another of its rounds."""

from __future__ import annotations

from ponder.core.state import Allowance
from ponder.services.research.budget import Spent, allowance_spent, researchers_room
from ponder.settings.configuration import Configuration

# The loop's two rounds: 8 s of round nodes, 2 s planning its queries, 3,000 tokens; the
# report's reserve is one call of 5 s (its calls' average; no timings kept).
LOOP = Spent(seconds=12.0, tokens=3000, rounds=2, calls=6, model_seconds=30.0, written=600,
             round_seconds=8.0, query_seconds=2.0, starts=1)  # fmt: skip


def settings(**values: object) -> Configuration:
    return Configuration.create(model="m", **values)  # type: ignore[arg-type]


def test_without_a_budget_every_researcher_goes_with_no_allowance() -> None:
    assert researchers_room(LOOP, settings(), 12.0, 3) == (3, None, None)


def test_a_time_budget_sends_as_many_researchers_as_fit_side_by_side() -> None:
    # A researcher's round: 4 s of round and 2 s of planning, × 1.25 = 7.5 s; one model
    # server answers them in turn. 12 s spent, 5 s kept for the report.
    count, allowance, ended = researchers_room(LOOP, settings(time_budget=12 + 5 + 16), 12.0, 3)
    assert (count, ended) == (2, None)
    assert allowance == Allowance(seconds=16.0, tokens=None), "the time left, for each"
    assert researchers_room(LOOP, settings(time_budget=20 + 5 + 7), 20.0, 3) == (0, None, "time")


def test_a_token_budget_shares_what_is_left_after_the_reports_reserve() -> None:
    s = settings(num_predict=512, summary_tokens=400, evidence_tokens=600)
    reserve = 400 + 600 + 600 + 512
    # A round: 1,500 tokens × 1.25; room for two of them.
    budget = 3000 + reserve + 4000
    count, allowance, ended = researchers_room(
        LOOP, s.model_copy(update={"token_budget": budget}), 12.0, 3
    )
    assert (count, ended) == (2, None)
    assert allowance == Allowance(seconds=None, tokens=2000)
    short = s.model_copy(update={"token_budget": 3000 + reserve + 1000})
    assert researchers_room(LOOP, short, 12.0, 3) == (0, None, "tokens")


def test_before_any_round_is_measured_all_go_each_held_to_its_share() -> None:
    nothing = Spent(seconds=3.0, tokens=800, rounds=0, calls=2, model_seconds=3.0, written=80)
    count, allowance, _ = researchers_room(nothing, settings(token_budget=20_000), 3.0, 3)
    assert count == 3 and allowance is not None and allowance["tokens"] is not None
    assert allowance["tokens"] * 3 <= 20_000 - 800


def test_a_researcher_stops_when_its_allowance_has_no_room_for_another_round() -> None:
    # One round of 6 s and 1,000 tokens: another may cost 7.5 s and 1,250 tokens.
    own = Spent(seconds=6.0, tokens=1000, rounds=1, calls=3, model_seconds=6.0, written=200,
                round_seconds=6.0)  # fmt: skip
    assert allowance_spent(own, Allowance(seconds=14.0, tokens=None)) is None
    assert allowance_spent(own, Allowance(seconds=13.0, tokens=None)) == "time"
    assert allowance_spent(own, Allowance(seconds=None, tokens=2300)) is None
    assert allowance_spent(own, Allowance(seconds=None, tokens=2200)) == "tokens"


def test_a_researchers_seconds_are_not_counted_twice() -> None:
    stats = {"node_seconds": {"supervisor": 1.0, "researcher": 10.0, "summarize_sources": 6.0,
                              "reflect": 4.0}}  # fmt: skip
    assert Spent.of(stats, 1).seconds == 11.0, "a researcher's time is its inner nodes'"


def test_with_nothing_measured_and_no_room_one_researcher_still_runs_one_round() -> None:
    nothing = Spent(seconds=3.0, tokens=1900, rounds=0, calls=2, model_seconds=3.0, written=80)
    count, allowance, ended = researchers_room(nothing, settings(token_budget=2000), 3.0, 3)
    assert (count, ended) == (1, None), "the first round researches something"
    assert allowance == Allowance(seconds=None, tokens=0), "and stops after it"
