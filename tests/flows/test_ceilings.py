"""Operator ceilings on what a caller spends: each cost a caller chooses is bounded by an
operator field; a caller above it is refused with a message naming the ceiling and where
the operator sets it, one who does not choose gets the operator's value lowered to it, and
the operator itself is held to none of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import over_corpus

from ponder import aresearch
from ponder.core.errors import CallerRefusedError, ConfigurationError, TooManyRunsError
from ponder.settings.callers import served_configuration, vet
from ponder.settings.ceilings import CEILINGS, RunSlots, env_name, hard_cap, recursion_ceiling
from ponder.settings.configuration import Configuration
from ponder.settings.run_settings import SERVED_KEY, run_configuration
from ponder.testing import Rig, ScriptedBackend


def test_every_ceiling_stands_at_its_costs_hard_cap_until_the_operator_lowers_it() -> None:
    for name, ceiling in CEILINGS.items():
        field = Configuration.model_fields[ceiling]
        assert hard_cap(ceiling) == hard_cap(name) == field.default, name
    at_caps = {name: hard_cap(name) for name in CEILINGS}
    at_caps["num_predict"] = Configuration().num_ctx // 2  # its own cap: half the window
    assert served_configuration(at_caps)  # all allowed


@pytest.mark.parametrize("name", sorted(CEILINGS))
def test_a_caller_above_a_ceiling_is_refused_with_the_ceiling_named(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ceiling_env = env_name(CEILINGS[name])
    monkeypatch.setenv(ceiling_env, "2")
    assert vet({name: 2}) == {name: 2} and vet({name: 1}) == {name: 1}
    for above in (3, "3"):  # a form sends text
        with pytest.raises(CallerRefusedError) as refused:
            vet({name: above})
        assert f"{name}=3 is above this server's ceiling of 2" in str(refused.value)
        assert f"its operator sets {ceiling_env}" in str(refused.value)
    # Beyond the hard cap it is no valid setting at all: validation says so (a 422, not 403).
    with pytest.raises(ConfigurationError) as invalid:
        served_configuration({name: hard_cap(name) + 1})
    assert not isinstance(invalid.value, CallerRefusedError) and name in str(invalid.value)


def test_a_caller_who_does_not_choose_gets_the_operators_value_lowered_to_the_ceiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PONDER_MAX_LOOPS", "6")
    monkeypatch.setenv("PONDER_CALLER_MAX_LOOPS", "4")
    monkeypatch.setenv("PONDER_QUERIES_PER_ROUND", "2")  # already under its ceiling (8)
    served = served_configuration({})
    assert served.max_loops == 4 and served.queries_per_round == 2
    assert served_configuration({"max_loops": 3}).max_loops == 3
    assert Configuration.create().max_loops == 6  # the operator's own runs keep its value


def test_a_budget_ceiling_refuses_a_larger_budget_and_is_the_budget_of_one_who_asks_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert served_configuration({}).time_budget is None, "no ceiling until the operator sets one"
    monkeypatch.setenv("PONDER_CALLER_TIME_BUDGET", "5m")
    monkeypatch.setenv("PONDER_CALLER_TOKEN_BUDGET", "30000")
    served = served_configuration({})
    assert (served.time_budget, served.token_budget) == (300, 30000)
    assert served_configuration({"time_budget": "2m"}).time_budget == 120
    with pytest.raises(CallerRefusedError, match="time_budget=600 seconds is above"):
        vet({"time_budget": "10m"})
    with pytest.raises(CallerRefusedError, match="PONDER_CALLER_TOKEN_BUDGET"):
        vet({"token_budget": 30001})
    assert Configuration.create().time_budget is None, "the operator's own runs: none"


def test_the_operator_is_held_to_no_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    for ceiling in CEILINGS.values():
        monkeypatch.setenv(env_name(ceiling), "1")
    mine = {"max_loops": 5, "max_concurrent_researchers": 4}
    assert run_configuration({"configurable": mine}).max_loops == 5  # the CLI, Python
    with pytest.raises(CallerRefusedError, match="max_loops=5 is above"):
        run_configuration({"configurable": {**mine, SERVED_KEY: True}})  # a served graph


def test_the_recursion_limit_a_caller_may_ask_is_what_a_run_at_the_ceilings_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at_caps = Configuration.create(max_loops=20, max_supervisor_rounds=10).recursion_limit
    assert recursion_ceiling(Configuration.create()) == at_caps
    monkeypatch.setenv("PONDER_CALLER_MAX_LOOPS", "2")
    monkeypatch.setenv("PONDER_CALLER_MAX_SUPERVISOR_ROUNDS", "1")
    lowered = Configuration.create(max_loops=2, max_supervisor_rounds=1).recursion_limit
    assert recursion_ceiling(Configuration.create()) == lowered < at_caps


def test_run_slots_hold_each_caller_to_its_limit_and_free_a_slot_when_a_run_ends() -> None:
    slots = RunSlots()
    with slots.hold("alice", 2), slots.hold("alice", 2):
        with pytest.raises(TooManyRunsError) as refused, slots.hold("alice", 2):
            pass
        assert "You already have 2 runs running or queued" in str(refused.value)
        assert "PONDER_CALLER_RUNS=2" in str(refused.value)
        with slots.hold("bob", 2), slots.hold("operator", None), slots.hold("operator", None):
            assert (slots.live("alice"), slots.live("bob"), slots.live("operator")) == (2, 1, 2)
    assert slots.live("alice") == 0
    with slots.hold("alice", 2):  # a slot ended is free again
        assert slots.live("alice") == 1


async def test_the_python_api_runs_past_the_ceilings_it_sets_for_callers(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_CALLER_MAX_LOOPS", "1")
    scripted.overrides["Reflection"] = lambda _r: {
        "is_sufficient": False, "knowledge_gap": "more", "scope": "focused", "subtopics": [],
        "follow_up_queries": [f"tides {len(rig.chat_log())}"]}  # fmt: skip
    report = await aresearch("How do tides work?", **over_corpus(rig, corpus, mode="loop",
                                                                 max_loops=2))  # fmt: skip
    assert report.stats.rounds == 2
