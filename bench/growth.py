"""Prompt growth: prompt tokens per round of one long run, which must not grow.

The scripted model writes long findings every round, so the running summary is at its
budget from round 2 on; the tiny model's 8-round run (``--tiny-growth``) is measured
inside the tiny-model benchmark (:mod:`tiny_cost`), which has the model loaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tides import TOPIC, base, fresh_followups, research, tiny_config

from ponder.testing import ChatRequest, LogEntry, Rig, ScriptedBackend


def rounds_of(log: list[LogEntry], count: int) -> list[list[LogEntry]]:
    """Calls grouped by round: each round ends with its Reflection call, except the last,
    which asks none (its verdict could not change anything) and is followed by the report."""
    rounds: list[list[LogEntry]] = [[]]
    for entry in log:
        if entry.schema is not None:  # the report's plain-text calls belong to no round
            rounds[-1].append(entry)
        if entry.schema == "Reflection":
            rounds.append([])
    return (rounds + [[]] * count)[:count]


def per_round(log: list[LogEntry], count: int) -> dict[str, list[int]]:
    rounds = rounds_of(log, count)
    return {
        "prompt_tokens_per_round": [sum(e.prompt_tokens for e in r) for r in rounds],
        "summary_prompt_tokens_per_round": [
            sum(e.prompt_tokens for e in r if e.schema == "SummaryUpdate") for r in rounds
        ],
    }


def pct(a: float, b: float) -> float:
    return round(100.0 * (a - b) / b, 1) if b else 0.0


def growth_figures(figures: dict[str, Any]) -> dict[str, Any]:
    """Prompts must not grow: no round after the second costs > 15 % more than the larger
    of the first two.

    Peaks are compared rather than round 8 against round 2: a round's prompt holds the new
    passages it read, so a round that read little (or nothing: no summary call) is light,
    and the last round asks no reflection. What must not happen is a later round heavier
    than the first ones, which already held a full summary and full evidence.
    """
    tokens = figures["prompt_tokens_per_round"]
    if len(tokens) >= 8:
        early, late = max(tokens[:2]), max(tokens[2:])
        figures["peak_after_round2_vs_first_two_pct"] = pct(late, early)
        figures["target_met"] = late <= early * 1.15
    return figures


def long_findings(request: ChatRequest) -> dict[str, Any]:
    """Eight long findings, each restating a source of the prompt (so each is grounded)."""
    prompt = str(request.messages[-1]["content"])
    blocks = re.findall(r'<source n="(\d+)"[^>]*>\n(.*?)\n</source>', prompt, re.S)
    findings = []
    for i in range(8):
        number, text = blocks[i % len(blocks)]
        statement = f"Point {chr(97 + i)}: " + " ".join(text.split())[:220]
        findings.append({"statement": statement, "sources": [int(number)]})
    return {"findings": findings}


def bench_growth_scripted(corpus: Path) -> dict[str, Any]:
    """Long findings every round, so the running summary is at its budget from round 2 on."""
    overrides = {"SummaryUpdate": long_findings, "Reflection": fresh_followups()}
    backend = ScriptedBackend(overrides=overrides)
    with Rig(backend) as rig:
        config = base(rig, corpus, max_loops=8, num_ctx=4096, num_predict=512, summary_tokens=400)
        report = research(TOPIC, **config)
        figures = per_round(rig.chat_log(), report.stats.rounds)
    figures.update(rounds=report.stats.rounds, summary_tokens=400, num_ctx=4096)
    return growth_figures(figures)


def bench_growth_tiny(rig: Rig, corpus: Path) -> dict[str, Any]:
    """Eight rounds with the tiny model behind ``rig`` (its Reflections overridden)."""
    start = len(rig.chat_log())
    report = research(TOPIC, **tiny_config(rig, corpus, max_loops=8, summary_tokens=300))
    figures = per_round(rig.chat_log()[start:], report.stats.rounds)
    figures.update(rounds=report.stats.rounds, wall_seconds=report.stats.wall_seconds)
    return growth_figures(figures)
