"""A run's time and token budgets (``time_budget``, ``token_budget``): what the research has
spent, what one more round and the report would cost, learned from this run's own calls.

The loop asks before each round after the first (:func:`budget_spent`): it searches again
only when what it spent, one more round as costly as its costliest so far may be, and the
report's reserve all fit. What a run spent is read from its statistics: the seconds its
nodes took (the loop's nodes run one at a time, so that is its working time, and a pause
for an answer is not counted) and the tokens the model server counted.

The report's reserve: its tokens are bounded by the settings that shape it (the running
summary, the evidence shown, and what the model may write); its time is one call at this
run's pace (a latency and a per-token time fitted to its calls) writing as much as the
run's longest text, and never less than a short report. The report itself is then held to
what is left (:func:`report_tokens`): the tokens, and what the model writes in the time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ponder.core.state import Allowance
from ponder.settings.configuration import Configuration

ROUND_MARGIN = 1.25  # a round may cost more than the average of those before it
PROMPT_OVERHEAD = 600  # the report prompt's instructions and sources' list, in tokens
SHORTEST_REPORT = 256  # tokens: a report held to fewer says too little to be worth it
ROUND_NODES = ("web_research", "summarize_sources", "reflect")  # what each round runs
WRAPPERS = ("researcher",)  # nodes whose seconds are their inner nodes', counted already


@dataclass(frozen=True)
class Spent:
    """What a run has spent so far, from its statistics."""

    seconds: float
    tokens: int
    rounds: int
    calls: int
    model_seconds: float
    written: int  # completion tokens
    timings: tuple[tuple[float, int], ...] = ()  # each model call's seconds and tokens written
    round_seconds: float = 0.0  # of ``seconds``, the rounds' own (not the question's checks)
    reflect_seconds: float = 0.0  # of those, the reflections' (the last round has none)
    query_seconds: float = 0.0  # planning the first queries, once per loop or researcher
    starts: int = 1  # how many loops and researchers planned them

    @property
    def per_researcher(self) -> float:
        """Seconds a researcher's round takes: a round, and planning its first queries."""
        return self.per_round + self.query_seconds / max(self.starts, 1)

    @property
    def per_round(self) -> float:
        """Seconds one round takes: its own nodes', without what ran once before them."""
        spent = self.round_seconds or self.seconds
        return spent / self.rounds if self.rounds else 0.0

    @classmethod
    def of(cls, stats: dict[str, Any] | None, rounds: int, starts: int = 1) -> Spent:
        stats = stats or {}
        timings = tuple((float(t[0]), int(t[1])) for t in stats.get("call_timings") or [])
        nodes = stats.get("node_seconds") or {}
        seconds = sum(float(s) for name, s in nodes.items() if name not in WRAPPERS)
        written = int(stats.get("completion_tokens") or 0)
        return cls(
            seconds=seconds,
            tokens=int(stats.get("prompt_tokens") or 0) + written,
            rounds=rounds,
            calls=int(stats.get("llm_calls") or 0),
            model_seconds=float(stats.get("model_seconds") or 0.0),
            written=written,
            timings=timings,
            round_seconds=sum(float(nodes.get(name) or 0) for name in ROUND_NODES),
            reflect_seconds=float(nodes.get("reflect") or 0),
            query_seconds=float(nodes.get("generate_query") or 0),
            starts=starts,
        )


def report_reserve(spent: Spent, settings: Configuration) -> tuple[float, int]:
    """The seconds and tokens to keep for the report."""
    tokens = settings.summary_tokens + settings.evidence_tokens + PROMPT_OVERHEAD
    tokens += settings.num_predict
    # Never less time than the shortest report worth writing: the report itself is then
    # held to the time left.
    return report_seconds(spent, settings, at_least=SHORTEST_REPORT), tokens


def budget_spent(spent: Spent, settings: Configuration, rounds: int = 1) -> str | None:
    """Which budget leaves no room for ``rounds`` more rounds and the report ("time",
    "tokens"), or None (none set, or both have room)."""
    if spent.rounds < 1:
        return None  # nothing measured yet: the first round runs
    reserve_seconds, reserve_tokens = report_reserve(spent, settings)
    round_seconds = ROUND_MARGIN * spent.per_round * rounds
    round_tokens = ROUND_MARGIN * spent.tokens / spent.rounds * rounds
    budget = settings.time_budget
    if budget is not None and spent.seconds + round_seconds + reserve_seconds > budget:
        return "time"
    tokens = settings.token_budget
    if tokens is not None and spent.tokens + round_tokens + reserve_tokens > tokens:
        return "tokens"
    return None


def researchers_room(
    spent: Spent, settings: Configuration, elapsed: float, wanted: int
) -> tuple[int, Allowance | None, str | None]:
    """How many of ``wanted`` researchers the budgets leave room for, what each may spend,
    and the budget that leaves room for none ("time", "tokens"). What is left once the
    report's reserve is kept is shared: each researcher may take the seconds left (they run
    side by side) and its share of the tokens. A researcher's round is reckoned to cost
    one of the turn's rounds so far and the planning of its queries, in seconds and in
    tokens; side by side, they take as long as one after another (one model server answers
    them in turn). Before any round is measured, all of them go, each held to its share;
    with no room left even then, one goes for one round (a report rests on something).
    ``elapsed``: the turn's seconds."""
    if settings.time_budget is None and settings.token_budget is None:
        return wanted, None, None
    reserve_seconds, reserve_tokens = report_reserve(spent, settings)
    count, seconds, tokens, short = wanted, None, None, None
    if settings.time_budget is not None:
        seconds = settings.time_budget - elapsed - reserve_seconds
        if spent.rounds:
            count = min(count, int(seconds // (ROUND_MARGIN * spent.per_researcher or 1e-9)))
        short = "time" if count < 1 or seconds <= 0 else None
    if settings.token_budget is not None:
        room = settings.token_budget - spent.tokens - reserve_tokens
        if spent.rounds:
            count = min(count, int(room // (ROUND_MARGIN * spent.tokens / spent.rounds or 1)))
        tokens = room // max(count, 1)
        short = short or ("tokens" if count < 1 or tokens <= 0 else None)
    if short and spent.rounds:
        return 0, None, short
    if short:  # nothing measured yet: one researcher's first round, and no more
        none_left = Allowance(
            seconds=None if seconds is None else max(seconds, 0.0),
            tokens=None if tokens is None else max(tokens, 0),
        )
        return 1, none_left, None
    return count, Allowance(seconds=seconds, tokens=tokens), None


def allowance_spent(spent: Spent, allowance: Allowance) -> str | None:
    """For a researcher: the part of its ``allowance`` ("time", "tokens") that leaves no
    room for another round as costly as its own so far may be, or None."""
    if spent.rounds < 1:
        return None
    seconds, tokens = allowance["seconds"], allowance["tokens"]
    if seconds is not None and spent.seconds + ROUND_MARGIN * spent.per_round > seconds:
        return "time"
    if tokens is not None and spent.tokens * (1 + ROUND_MARGIN / spent.rounds) > tokens:
        return "tokens"
    return None


def time_left(spent: Spent, settings: Configuration) -> float | None:
    """Seconds the run has left as a round starts: the rounds it will still run (this one
    included; as many as ``max_loops`` and the time budget allow) at this run's seconds per
    round, and its report at this run's model speed. None before a round is measured."""
    if spent.rounds < 1 or spent.seconds <= 0:
        return None
    per_round = spent.per_round
    rounds = max(0, settings.max_loops - spent.rounds)
    report = report_seconds(spent, settings)
    last = rounds  # the loop's last round asks the model no reflection
    if settings.time_budget is not None:
        # As budget_spent decides it, round by round: this one was allowed already.
        ahead, more = spent.seconds + per_round, 1
        while more < rounds and ahead + ROUND_MARGIN * per_round + report <= settings.time_budget:
            ahead, more = ahead + per_round, more + 1
        rounds = min(rounds, more)
    unreflected = spent.reflect_seconds / spent.rounds if rounds == last else 0.0
    return rounds * per_round - unreflected + report


def deep_time_left(
    elapsed: float, rounds_done: int, spent: Spent, settings: Configuration
) -> float | None:
    """Seconds the deep pipeline has left as a round of researchers starts: its rounds to
    come, this one included, at the wall-clock pace of those so far (its researchers run
    side by side), and its report at this run's model pace (one call: a report written by
    sections takes longer). None before a round is measured."""
    if rounds_done < 1 or elapsed <= 0:
        return None
    rounds = max(0, settings.max_supervisor_rounds - rounds_done)
    return rounds * elapsed / rounds_done + report_seconds(spent, settings)


def report_seconds(spent: Spent, settings: Configuration, at_least: int = 0) -> float:
    """How long the report's model call should take: a call's latency and a token's time,
    fitted to this run's calls, for as many tokens as its longest call wrote (a report is
    prose as long as a summary, up to ``num_predict``), or ``at_least`` that many."""
    latency, per_token = model_speed(spent)
    longest = max((written for _, written in spent.timings), default=0)
    return latency + per_token * max(at_least, min(settings.num_predict, longest))


def model_speed(spent: Spent) -> tuple[float, float]:
    """Seconds a call takes before it writes, and per token written: the least-squares line
    through this run's calls (a slow model's time is mostly one or the other); averages
    when the calls are too alike to tell them apart."""
    calls = spent.timings
    if not calls:
        average = spent.model_seconds / spent.calls if spent.calls else 0.0
        return average, 0.0
    mean_tokens = sum(t for _, t in calls) / len(calls)
    mean_seconds = sum(s for s, _ in calls) / len(calls)
    spread = sum((t - mean_tokens) ** 2 for _, t in calls)
    if spread < 1e-9:
        return mean_seconds, 0.0
    slope = sum((t - mean_tokens) * (s - mean_seconds) for s, t in calls) / spread
    slope = max(slope, 0.0)
    return max(mean_seconds - slope * mean_tokens, 0.0), slope


def report_tokens(
    spent: Spent, settings: Configuration, reading: int | None = None, calls: int = 1
) -> int | None:
    """The most each of the report's ``calls`` may write to stay within the budgets (None:
    no budget; 0: too little is left for the model's report, so it is built from the
    sources): under a token budget, the tokens left once it has read what it reads
    (``reading``; by default what the loop's report reads); under a time budget, what this
    run's model writes in the time left."""
    caps = []
    if settings.token_budget is not None:
        if reading is None:
            reading = settings.summary_tokens + settings.evidence_tokens + PROMPT_OVERHEAD
        caps.append(settings.token_budget - spent.tokens - reading)
    if settings.time_budget is not None:
        latency, per_token = model_speed(spent)
        left = settings.time_budget - spent.seconds - calls * latency
        caps.append(int(left / per_token) if per_token > 0 else settings.num_predict * (left > 0))
    if not caps:
        return None
    each = min(caps) // max(calls, 1)
    return 0 if each < SHORTEST_REPORT else min(settings.num_predict, each)


def said(reason: str, settings: Configuration, rounds: int, most: int | None = None) -> str:
    """The report's note on a budget that ended the research after ``rounds`` of ``most``
    (the loop's ``max_loops``, or the deep pipeline's supervisor rounds)."""
    if reason == "time":
        limit = f"time budget ({_duration(settings.time_budget or 0)})"
    else:
        limit = f"token budget ({settings.token_budget:,} tokens)"
    return (
        f"The {limit} ended the research after {rounds} of {most or settings.max_loops} "
        "round(s), "
        "leaving the report its share."
    )


def noted(markdown: str, note: str) -> str:
    """The report with ``note`` in italics under its title (the first line, a heading)."""
    title, newline, rest = markdown.partition("\n")
    if not title.startswith("# "):
        return f"*{note}*\n\n{markdown}"
    return f"{title}\n\n*{note}*\n{newline}{rest.lstrip(chr(10))}"


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    parts = [f"{minutes} min" if minutes else "", f"{rest} s" if rest or not minutes else ""]
    return " ".join(part for part in parts if part)
