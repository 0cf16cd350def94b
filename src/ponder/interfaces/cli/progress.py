"""Live progress in the terminal: phase, round i of N, queries in flight, sources, tokens, time.

:class:`ProgressView` folds :class:`~ponder.core.events.ProgressEvent` objects into a small state
and, when enabled, shows it with a rich ``Live`` display on stderr (stdout stays clean for
the report). Disabled — stdout is not a terminal — it still keeps the state but prints
nothing, so pipes and log files see only the result.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from ponder.core.events import ProgressEvent
from ponder.core.untrusted import printable

PHASES = {
    "take_question": "checking what can be searched",
    "generate_query": "planning searches",
    "web_research": "searching",
    "summarize_sources": "reading and summarising",
    "reflect": "reflecting",
    "finalize_summary": "writing the report",
    "clarify_with_user": "checking the question",
    "ask_user": "waiting for your answer",
    "write_research_brief": "writing the research brief",
    "supervisor": "planning sub-topics",
    "researcher": "researching sub-topics",
    "final_report": "writing the report",
}
MAX_QUERIES_SHOWN = 5
DRAFT_LINES_SHOWN = 8  # the tail of the report as the model writes it


@dataclass
class ProgressState:
    """What the display shows, built from events only."""

    phase: str = "starting"
    round: int = 0
    max_rounds: int = 0
    queries: list[str] = field(default_factory=list)
    sources: int = 0
    tokens: int = 0
    researching: set[str] = field(default_factory=set)
    researched: int = 0
    supervisor_round: int = 0
    warnings: list[str] = field(default_factory=list)
    repeats: dict[str, int] = field(default_factory=dict)  # a warning's shape → times again
    draft: str = ""  # report text streaming in; cleared when an attempt is discarded
    draft_note: str = ""
    # When the run should end, as its latest round estimated it (time.monotonic()).
    left_until: float | None = None

    def apply(self, event: ProgressEvent) -> str | None:
        """Fold one event in; returns a warning to print, if the event is a new one."""
        data = event.data
        if event.kind == "node_start":
            self.phase = PHASES.get(event.node, event.node.replace("_", " "))
            self.draft_note = ""
        elif event.kind == "node_end":
            self.tokens += int(data.get("tokens") or 0)
        elif event.kind == "round_start":
            self.round = int(data.get("round") or self.round)
            self.max_rounds = int(data.get("max_rounds") or self.max_rounds)
            self.queries = [str(q) for q in data.get("queries") or []]
            self._left(data)
        elif event.kind == "queries":
            self.queries = [str(q) for q in data.get("queries") or []]
        elif event.kind == "sources":
            self.sources = max(self.sources, int(data.get("total") or 0))
        elif event.kind == "researcher":
            self._researcher(str(data.get("topic") or ""), str(data.get("status") or ""))
        elif event.kind == "supervisor":
            self.supervisor_round = int(data.get("round") or self.supervisor_round)
            self.queries = [str(s) for s in data.get("subtopics") or []]
            self._left(data)
        elif event.kind == "token":
            self.draft += printable(str(data.get("text") or ""))
        elif event.kind == "discarded":
            self.draft = ""
            self.draft_note = f"draft discarded: {data.get('reason') or 'unusable'}"
        elif event.kind == "cut":
            self.draft = self.draft[: int(data.get("keep") or 0)]
            self.draft_note = f"draft cut: {data.get('reason') or 'it degenerated'}"
        elif event.kind == "warning":
            message = printable(str(data.get("message") or ""))
            key = str(data.get("shape") or message)
            if key in self.repeats:  # the same warning for another query: counted
                self.repeats[key] += 1
            elif message:
                self.repeats[key] = 0
                self.warnings.append(message)
                return message
        return None

    def repeated(self) -> list[str]:
        """A line for each warning shown once that came again (for other queries)."""
        firsts = dict(zip(self.repeats, self.warnings, strict=False))
        return [
            f"{firsts[key]} (and {times} more like it)"
            for key, times in self.repeats.items()
            if times and key in firsts
        ]

    def _left(self, data: dict[str, Any]) -> None:
        """The run's estimate of its time left, as a round (of the loop's, or of the
        supervisor's researchers) starts; a researcher's own rounds say none."""
        if data.get("researcher"):
            return
        left = data.get("seconds_left")
        self.left_until = time.monotonic() + float(left) if left is not None else None

    def _researcher(self, topic: str, status: str) -> None:
        if status == "started":
            self.researching.add(topic)
        elif topic in self.researching:
            self.researching.discard(topic)
            self.researched += 1

    def headline(self, elapsed: float) -> str:
        parts = [self.phase]
        if self.supervisor_round:
            parts.append(f"supervisor round {self.supervisor_round}")
            parts.append(f"researchers: {len(self.researching)} running, {self.researched} done")
        elif self.round:
            parts.append(f"round {self.round} of {self.max_rounds or '?'}")
        parts += [
            f"{self.sources} source{'s' if self.sources != 1 else ''}",
            f"{self.tokens:,} tokens",
            format_elapsed(elapsed),
        ]
        if self.left_until is not None:
            parts.append(f"about {format_elapsed(max(self.left_until - time.monotonic(), 0))} left")
        return " · ".join(parts)


def format_elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressView:
    """Use as a context manager around a run; feed it events with :meth:`update`."""

    def __init__(self, console: Console | None = None, *, enabled: bool = True) -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled
        self.state = ProgressState()
        self.started = time.monotonic()
        self._spinner = Spinner("dots", style="cyan")
        self._live: Live | None = None

    def __enter__(self) -> ProgressView:
        self.started = time.monotonic()
        if self.enabled:
            self._live = Live(
                get_renderable=self.render,
                console=self.console,
                refresh_per_second=8,
                transient=True,  # the final summary line replaces it
            )
            self._live.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def update(self, event: ProgressEvent) -> None:
        warning = self.state.apply(event)
        if warning and self.enabled:
            self.console.print(Text(f"warning: {warning}", style="yellow"))

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the live display while the user types an answer."""
        live = self._live
        if live is not None:
            live.stop()
        try:
            yield
        finally:
            if live is not None:
                live.start()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def render(self) -> RenderableType:
        grid = Table.grid(padding=(0, 1))
        grid.add_column()
        grid.add_column()
        grid.add_row(self._spinner, Text(self.state.headline(self.elapsed()), style="bold"))
        rows: list[Any] = [grid]
        shown = self.state.queries[:MAX_QUERIES_SHOWN]
        for query in shown:
            rows.append(Text(f"  › {query}", style="dim", overflow="ellipsis", no_wrap=True))
        if len(self.state.queries) > len(shown):
            rows.append(Text(f"  … and {len(self.state.queries) - len(shown)} more", "dim"))
        rows += self._draft_rows()
        return Group(*rows)

    def _draft_rows(self) -> list[Text]:
        """The last lines of the report being written, so the wait shows its progress."""
        note = [Text(f"  {self.state.draft_note}", style="yellow")] if self.state.draft_note else []
        lines = [line for line in self.state.draft.splitlines() if line.strip()]
        return note + [
            Text(f"  {line}", style="dim", overflow="ellipsis", no_wrap=True)
            for line in lines[-DRAFT_LINES_SHOWN:]
        ]

    def summary(self) -> str:
        """One closing line, e.g. ``done · round 2 of 3 · 7 sources · 1,234 tokens · 0:42``."""
        final = dataclasses.replace(self.state, phase="done")
        return final.headline(self.elapsed())
