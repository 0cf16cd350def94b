"""Fit prompts to the context window.

Token counts are estimated from characters with a chars-per-token figure that is calibrated
per model against Ollama's reported ``prompt_eval_count``. When a prompt is too long, the
lowest-priority parts go first; the callers order source passages by relevance, so the most
relevant evidence is what survives.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_CHARS_PER_TOKEN = 3.5
_calibration: dict[str, float] = {}


def chars_per_token(model: str) -> float:
    return _calibration.get(model, DEFAULT_CHARS_PER_TOKEN)


def calibrate(model: str, prompt_chars: int, prompt_tokens: int) -> None:
    """Blend one observation into the model's chars-per-token figure."""
    if prompt_tokens < 32 or prompt_chars < 64:
        return  # too small to say anything; chat-template overhead dominates
    observed = min(max(prompt_chars / prompt_tokens, 1.5), 8.0)
    current = _calibration.get(model)
    _calibration[model] = observed if current is None else 0.7 * current + 0.3 * observed


def estimate_tokens(text: str, model: str = "") -> int:
    return int(len(text) / chars_per_token(model)) + 1


@dataclass
class Part:
    """One piece of a prompt. Priority 0 is never dropped, only shortened as a last resort."""

    text: str
    priority: int = 0


def fit(parts: list[Part], max_tokens: int, model: str = "") -> tuple[list[Part], int]:
    """Drop lowest-priority parts until the prompt fits; returns (kept parts, dropped count).

    Parts keep their original order. If the required parts alone are too long, the longest
    one is cut at its end (never silently: the count of dropped parts is returned as -1).
    """
    kept = list(parts)
    dropped = 0
    while _tokens(kept, model) > max_tokens:
        optional = [p for p in kept if p.priority > 0]
        if not optional:
            return _shorten_required(kept, max_tokens, model), -1
        worst = max(optional, key=lambda p: (p.priority, kept.index(p)))
        kept.remove(worst)
        dropped += 1
    return kept, dropped


def _tokens(parts: list[Part], model: str) -> int:
    return sum(estimate_tokens(p.text, model) for p in parts)


def _shorten_required(parts: list[Part], max_tokens: int, model: str) -> list[Part]:
    excess_chars = int((_tokens(parts, model) - max_tokens) * chars_per_token(model)) + 16
    longest = max(parts, key=lambda p: len(p.text))
    cut = max(len(longest.text) - excess_chars, 0)
    shortened = Part(longest.text[:cut] + "\n[…truncated to fit the context window]", 0)
    return [shortened if p is longest else p for p in parts]
