"""The capacity table of docs/deploy.md, computed from bench/results.json.

Measured here (by `make bench`): the tokens and model calls of a focused run (the quality
benchmark: 24 questions, 2 rounds each) and the calls of a deep run with 4 researchers
(the several-hosts benchmark); how much of a run is ponder's own time. Not measurable here
(no GPU): how fast a GPU serves a model. Those rates are assumptions, stated in GPUS;
replace them with what `ollama run MODEL --verbose` reports on your hardware.

Run: ``python bench/capacity.py`` (prints the Markdown table).
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).with_name("results.json")

# (name, prompt tokens/s, generated tokens/s) for a 4B model at Q4 (gemma3:4b): assumptions.
GPUS = (
    ("consumer GPU, 12 GB (RTX 3060 class)", 1500.0, 60.0),
    ("workstation GPU, 24 GB (RTX 4090 class)", 5000.0, 140.0),
)
# A capable model writes longer answers than the 270M test model, whose replies the rig
# caps: its JSON decisions ~150 tokens, its report ~800 (ponder's num_predict is 1,024).
DECISION_TOKENS = 150
REPORT_TOKENS = 800


def run_costs(results: dict) -> dict[str, tuple[float, float]]:
    """(prompt tokens, generated tokens) of one focused and one deep run."""
    focused = results["tiny"]["focused"]["2_rounds"]
    prompt_per_call = focused["prompt_tokens"] / focused["llm_calls"]
    quality = results["quality"]["tiny"]["after"]
    share = focused["prompt_tokens"] / focused["total_tokens"]
    focused_prompt = quality["tokens_per_question"] * share
    calls = focused["llm_calls"]
    focused_out = (calls - 1) * DECISION_TOKENS + REPORT_TOKENS
    deep_calls = results["several_hosts"]["1_hosts"]["calls"]
    deep_prompt = deep_calls * prompt_per_call
    deep_out = (deep_calls - 1) * DECISION_TOKENS + REPORT_TOKENS
    return {"focused": (focused_prompt, focused_out), "deep": (deep_prompt, deep_out)}


def table(results: dict) -> str:
    costs = run_costs(results)
    lines = [
        "| GPU (4B model, Q4) | focused run | deep run (4 researchers) | focused runs / GPU-hour "
        "| deep runs / GPU-hour |",
        "|---|---|---|---|---|",
    ]
    for name, prefill, decode in GPUS:
        seconds = {k: p / prefill + o / decode for k, (p, o) in costs.items()}
        lines.append(
            f"| {name}: {prefill:,.0f} prompt, {decode:,.0f} generated tokens/s "
            f"| {seconds['focused']:.0f} s | {seconds['deep']:.0f} s "
            f"| {3600 / seconds['focused']:.0f} | {3600 / seconds['deep']:.0f} |"
        )
    (fp, fo), (dp, do) = costs["focused"], costs["deep"]
    lines.append("")
    lines.append(
        f"Per run: focused {fp:,.0f} prompt + {fo:,.0f} generated tokens; deep {dp:,.0f} + "
        f"{do:,.0f} ({results['several_hosts']['1_hosts']['calls']} model calls)."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(json.loads(RESULTS.read_text(encoding="utf-8"))))
