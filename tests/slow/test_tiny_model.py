"""The real tiny model through ChatOllama → ollama → httpx → the rig."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from ponder.services.model.llm import LLM
from ponder.services.model.prompt import Prompt
from ponder.settings.configuration import Configuration
from ponder.testing import TINY_MODEL, Rig

pytestmark = pytest.mark.tiny


class Plan(BaseModel):
    rationale: str = Field(max_length=120)
    queries: list[str] = Field(min_length=1, max_length=2)


def tiny_llm(rig: Rig) -> LLM:
    config = Configuration.create(
        model=TINY_MODEL, ollama_base_url=rig.url, num_ctx=2048, num_predict=96, max_retries=1
    )
    return LLM(config)


async def test_tiny_model_returns_a_valid_structured_object(tiny_rig: Rig) -> None:
    llm = tiny_llm(tiny_rig)
    sentinel = Plan(rationale="FALLBACK", queries=["FALLBACK"])
    plan = await llm.structured(
        Plan, Prompt.simple("Plan web searches.", "Topic: how tides work"), sentinel
    )
    # The model's own answer, decoded under the schema, not the fallback after failed tries.
    assert plan is not sentinel and llm.usage.fallbacks == 0
    entry = tiny_rig.chat_log()[-1]
    assert entry.schema == "Plan" and plan == Plan.model_validate_json(entry.reply)
    assert llm.usage.calls >= 1
    assert llm.usage.prompt_tokens > 0 and llm.usage.completion_tokens > 0
    assert entry.prompt_tokens == llm.usage.prompt_tokens_per_call[-1]


async def test_tiny_model_writes_text(tiny_rig: Rig) -> None:
    llm = tiny_llm(tiny_rig)
    text = await llm.text(Prompt.simple("Answer briefly.", "What is the Moon?"))
    assert text.strip()
    assert "<start_of_turn>" not in text and "<think>" not in text
