"""A text answer read as it streams: checked piece by piece, shown live, left early.

Leaving the stream closes the HTTP response, which tells the server to stop generating.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from langchain_core.messages import BaseMessage

from ponder.services.model import guard
from ponder.services.model.thinking import strip_thinking

# Tags on model calls: LangGraph leaves ``nostream`` calls (JSON decisions) out of its
# ``messages`` stream, so chat clients see only the prose ponder writes, tagged this way.
TEXT_TAG = "ponder:text"

Emit = Callable[..., None]
Check = Callable[[str], str | None]  # a reason to reject a text, or None


class TextStream:
    """One streamed answer: ``read`` it with a host's client, then look at ``text`` (thinking
    removed), ``problem`` (what stopped it, if anything) and the counts."""

    def __init__(
        self,
        messages: list[BaseMessage],
        sampling: dict[str, Any],
        watch: Check | None,
        emit: Emit | None = None,
    ) -> None:
        self.messages = messages
        self.sampling = sampling
        self.check = guard.StreamCheck(watch)
        self.live = LiveText(emit) if emit is not None else None
        self.pieces = 0
        self.usage: Any = None  # the counts the server reported, on the last chunk
        self.problem: guard.Problem | None = None

    async def read(self, client: Any) -> None:
        """Read until the answer ends or degenerates (then stop reading at once)."""
        stream = client.astream(self.messages, config={"tags": [TEXT_TAG]}, **self.sampling)
        async with contextlib.aclosing(stream) as chunks:
            async for chunk in chunks:
                self.pieces += 1
                self.usage = chunk.usage_metadata or self.usage
                self.problem = self.check.feed(str(chunk.text))
                if self.live is not None:
                    self.live.show(strip_thinking(self.check.text))
                if self.problem:
                    break

    def started(self) -> bool:
        """Whether the answer had begun (so a failure cannot move it to another host)."""
        return self.pieces > 0

    @property
    def text(self) -> str:
        return strip_thinking(self.check.text)

    async def settle(self) -> None:
        """After a stream left early, give the event loop a few turns.

        Closing LangChain's stream leaves the ollama client's inner generators to asyncio's
        finaliser, which closes the HTTP response — the signal for Ollama to stop
        generating — only once the loop runs again.
        """
        if self.problem:
            for _ in range(20):  # one turn per generator level and I/O step; 20 is ample
                await asyncio.sleep(0)


class LiveText:
    """Emits what became visible as ``token`` events.

    Text turns out to have been thinking when a ``</think>`` arrives without its opening
    tag: what was shown is then withdrawn with a ``discarded`` event.
    """

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.shown = ""

    def show(self, visible: str) -> None:
        if not visible.startswith(self.shown):
            self.emit("discarded", reason="that was the model thinking")
            self.shown = ""
        if len(visible) > len(self.shown):
            self.emit("token", text=visible[len(self.shown) :])
        self.shown = visible
