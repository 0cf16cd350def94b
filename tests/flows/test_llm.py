"""The Ollama layer against the scripted rig: retries, fallbacks, thinking, errors, budgets."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from ponder.core.errors import ModelCallError, ModelNotFoundError, OllamaUnavailableError
from ponder.services.model import budget
from ponder.services.model.llm import LLM
from ponder.services.model.prompt import Prompt
from ponder.settings.configuration import Configuration
from ponder.testing import Fault, Reply, Rig, ScriptedBackend


class Plan(BaseModel):
    rationale: str
    queries: list[str] = Field(min_length=1, max_length=3)


FALLBACK = Plan(rationale="fallback", queries=["topic"])
GOOD = {"rationale": "r", "queries": ["tides", "moon"]}


def make_llm(rig: Rig, warnings: list[str] | None = None, **overrides: object) -> LLM:
    values: dict[str, object] = {"request_timeout": 2.0, **overrides}
    config = Configuration.create(model="scripted", ollama_base_url=rig.url, **values)
    sink = warnings if warnings is not None else []
    return LLM(config, warn=sink.append)


async def test_schema_is_sent_in_format_with_explicit_num_ctx(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    scripted.push(GOOD)
    plan = await make_llm(rig, num_ctx=4096).structured(Plan, Prompt.simple("s", "u"), FALLBACK)
    assert plan.queries == ["tides", "moon"]
    [entry] = rig.chat_log()
    assert entry.schema == "Plan"
    assert entry.options["num_ctx"] == 4096
    assert entry.options["num_predict"] == Configuration().num_predict


@pytest.mark.parametrize("fault", ["garbage", "invalid_json", "http500", "stream_error", "drop"])
async def test_structured_retries_then_succeeds(
    rig: Rig, scripted: ScriptedBackend, fault: str
) -> None:
    scripted.push(Fault(fault), GOOD)  # type: ignore[arg-type]
    llm = make_llm(rig)
    plan = await llm.structured(Plan, Prompt.simple("s", "u"), FALLBACK)
    assert plan.rationale == "r"
    assert llm.usage.retries == 1 and llm.usage.fallbacks == 0
    assert len(rig.chat_log()) == 2


@pytest.mark.parametrize("fault", ["garbage", "invalid_json", "http500", "stream_error", "drop"])
async def test_structured_falls_back_after_bounded_retries(
    rig: Rig, scripted: ScriptedBackend, fault: str
) -> None:
    scripted.overrides["Plan"] = Fault(fault)  # type: ignore[arg-type]
    warnings: list[str] = []
    llm = make_llm(rig, warnings, max_retries=2)
    plan = await llm.structured(Plan, Prompt.simple("s", "u"), FALLBACK)
    assert plan == FALLBACK
    assert len(rig.chat_log()) == 3  # one try and exactly two retries
    assert llm.usage.fallbacks == 1
    assert warnings and "fallback" in warnings[0]


async def test_timeout_is_retried_then_falls_back(rig: Rig, scripted: ScriptedBackend) -> None:
    scripted.overrides["Plan"] = Fault("slow", delay=3.0)
    llm = make_llm(rig, max_retries=1, request_timeout=0.5)
    assert await llm.structured(Plan, Prompt.simple("s", "u"), FALLBACK) == FALLBACK
    assert llm.usage.fallbacks == 1


async def test_thinking_never_reaches_the_parser_or_text(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    scripted.push(
        Reply('<think>maybe {"rationale": "wrong"}</think>' + json.dumps(GOOD)),
        Reply(json.dumps(GOOD), thinking="the hidden chain of thought"),
        Reply("<think>secret plan</think>The answer is 42 [1]."),
        Reply("The visible answer.", thinking="private musing"),
    )
    llm = make_llm(rig)
    first = await llm.structured(Plan, Prompt.simple("s", "u"), FALLBACK)
    second = await llm.structured(Plan, Prompt.simple("s", "u"), FALLBACK)
    assert first.rationale == second.rationale == "r"
    assert await llm.text(Prompt.simple("s", "u")) == "The answer is 42 [1]."
    text = await llm.text(Prompt.simple("s", "u"))
    assert text == "The visible answer." and "musing" not in text


async def test_text_without_fallback_raises_clear_error(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    scripted.overrides["text"] = Fault("http500")
    with pytest.raises(ModelCallError, match="kept failing"):
        await make_llm(rig, max_retries=1).text(Prompt.simple("s", "u"))
    assert await make_llm(rig, max_retries=0).text(Prompt.simple("s", "u"), "fb") == "fb"


async def test_a_bug_in_a_check_raises_instead_of_passing_for_a_connection_problem(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    """A ValueError from ponder's own code while a text streams is a bug: it is not retried
    or replaced by the fallback as a network mistake would be."""
    prose = "The Moon pulls the sea towards it, and the Earth turns beneath the bulge [1]. " * 4
    scripted.push(Reply(prose), Reply(prose))

    def broken(_text: str) -> str | None:
        raise ValueError("a bug in the check")

    llm = make_llm(rig)
    with pytest.raises(ValueError, match="a bug in the check"):
        await llm.text(Prompt.simple("s", "u"), fallback="fb", watch=broken)
    assert llm.usage.retries == 0 and llm.usage.fallbacks == 0


async def test_model_missing_names_the_pull_command(rig: Rig) -> None:
    config = Configuration.create(model="qwen3:8b", ollama_base_url=rig.url)
    with pytest.raises(ModelNotFoundError) as err:
        await LLM(config).structured(Plan, Prompt.simple("s", "u"), FALLBACK)
    assert "ollama pull qwen3:8b" in str(err.value)


async def test_ollama_down_says_how_to_start_it() -> None:
    config = Configuration.create(model="m", ollama_base_url="http://127.0.0.1:9")
    with pytest.raises(OllamaUnavailableError) as err:
        await LLM(config).text(Prompt.simple("s", "u"), fallback="never used")
    assert "not running at http://127.0.0.1:9" in str(err.value)
    assert "ollama serve" in str(err.value)


async def test_usage_is_counted_from_ollama_metadata(rig: Rig, scripted: ScriptedBackend) -> None:
    scripted.push(GOOD, "plain text")
    llm = make_llm(rig)
    await llm.structured(Plan, Prompt.simple("s", "u" * 400), FALLBACK)
    await llm.text(Prompt.simple("s", "u"))
    log = rig.chat_log()
    assert llm.usage.calls == 2
    assert llm.usage.prompt_tokens == sum(e.prompt_tokens for e in log)
    assert llm.usage.completion_tokens == sum(e.eval_tokens for e in log)
    assert llm.usage.model_seconds > 0


async def test_prompt_is_trimmed_to_the_window_dropping_lowest_priority(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    scripted.push("ok")
    warnings: list[str] = []
    llm = make_llm(rig, warnings, num_ctx=1024, num_predict=128)
    parts = [budget.Part("KEEP " * 20, 0)] + [
        budget.Part(f"PASSAGE{i} " + "x" * 900, i + 1) for i in range(8)
    ]
    await llm.text(Prompt("system", parts))
    sent = rig.chat_log()[0].messages[-1]["content"]
    assert "KEEP" in sent and "PASSAGE0" in sent
    assert "PASSAGE7" not in sent  # the least relevant passage went first
    assert len(sent) / budget.chars_per_token("scripted") <= llm.prompt_budget()
    assert any("trimmed" in w for w in warnings)


def test_calibration_moves_towards_observed_ratio() -> None:
    before = budget.chars_per_token("calib-model")
    for _ in range(10):
        budget.calibrate("calib-model", 6000, 1000)
    assert before == budget.DEFAULT_CHARS_PER_TOKEN
    assert abs(budget.chars_per_token("calib-model") - 6.0) < 0.2


async def test_a_host_that_never_answers_the_connection_is_reported_unreachable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import httpx
    from langchain_ollama import ChatOllama

    async def timed_out(*_args: object, **_kwargs: object) -> None:
        raise httpx.ConnectTimeout("timed out")

    monkeypatch.setattr(ChatOllama, "ainvoke", timed_out)
    config = Configuration.create(model="m", ollama_base_url="http://gpu-box:11434")
    with pytest.raises(OllamaUnavailableError, match="gpu-box"):
        await LLM(config).text(Prompt.simple("s", "u"), fallback="never used")
