"""A prompt as parts, and the messages it becomes once fitted to the context window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from ponder.services.model import budget
from ponder.settings.configuration import Configuration

# Room kept free in the context window for the chat template and the model's answer.
TEMPLATE_OVERHEAD_TOKENS = 64


@dataclass
class Prompt:
    """A system instruction and user parts; parts with higher priority numbers drop first."""

    system: str
    parts: list[budget.Part]

    @classmethod
    def simple(cls, system: str, user: str) -> Prompt:
        return cls(system, [budget.Part(user, 0)])


def prompt_budget(config: Configuration) -> int:
    """Tokens a prompt may use: the window minus the answer and template overhead."""
    return max(config.num_ctx - config.num_predict - TEMPLATE_OVERHEAD_TOKENS, 256)


def fitted_messages(
    prompt: Prompt, config: Configuration, model: str, warn: Callable[[str], None]
) -> list[BaseMessage]:
    """The system and user messages, the parts that do not fit left out (or the required
    one shortened), with a warning that says so."""
    system = budget.Part(prompt.system, 0)
    kept, dropped = budget.fit([system, *prompt.parts], prompt_budget(config), model)
    if dropped:
        what = "a required part was shortened." if dropped < 0 else f"{dropped} part(s) left out."
        warn(f"Prompt trimmed to fit num_ctx={config.num_ctx}: {what}")
    user = "\n\n".join(p.text for p in kept[1:] if p.text)
    return [SystemMessage(kept[0].text), HumanMessage(user)]
