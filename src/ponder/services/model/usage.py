"""What model calls cost: counted per node, added up per run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from ponder.services.model import budget


@dataclass
class Usage:
    """What model calls cost during one node (or one run, when added up)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    retries: int = 0
    fallbacks: int = 0
    prompt_tokens_per_call: list[int] = field(default_factory=list)
    # Each call's [seconds, tokens written]: a run's time left is learned from them.
    call_timings: list[list[float]] = field(default_factory=list)

    stopped: int = 0  # generations stopped mid-stream because they degenerated
    discarded: int = 0  # live drafts withdrawn (rejected, broken off, or thinking)
    host_calls: dict[str, int] = field(default_factory=dict)  # calls answered, per host

    def count_host(self, url: str) -> None:
        self.host_calls[url] = self.host_calls.get(url, 0) + 1

    def record(self, prompt: int, completion: int, seconds: float) -> None:
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.model_seconds += seconds
        self.prompt_tokens_per_call.append(prompt)
        self.call_timings.append([round(seconds, 4), completion])

    def account(
        self,
        model: str,
        messages: Sequence[BaseMessage],
        reported: Mapping[str, Any] | None,
        pieces: int,
        seconds: float,
    ) -> None:
        """Record one call from the counts the server ``reported`` (which also calibrate
        the token estimate); a stream stopped early has none, so they are estimated: the
        prompt from its text, the answer at about one token per chunk."""
        prompt_chars = sum(len(str(m.content)) for m in messages)
        prompt = int((reported or {}).get("input_tokens") or 0)
        if prompt:
            self.record(prompt, int((reported or {}).get("output_tokens") or 0), seconds)
            budget.calibrate(model, prompt_chars, prompt)
        else:
            estimate = sum(budget.estimate_tokens(str(m.content), model) for m in messages)
            self.record(estimate, pieces, seconds)
