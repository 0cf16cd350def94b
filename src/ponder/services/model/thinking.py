"""Remove model 'thinking' so it never reaches a parser or a report."""

from __future__ import annotations

import re

_CLOSED = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_UNOPENED = re.compile(r"^.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
_UNCLOSED = re.compile(r"<(think|thinking|reasoning)>.*\Z", re.DOTALL | re.IGNORECASE)


def strip_thinking(text: str) -> str:
    """Drop <think>…</think> blocks, a dangling close tag's preamble and an unclosed block."""
    text = _CLOSED.sub("", text)
    text = _UNOPENED.sub("", text)
    text = _UNCLOSED.sub("", text)
    return text.strip()


def extract_json(text: str) -> str:
    """The outermost JSON object in text (models sometimes wrap it in prose or fences)."""
    start = text.find("{")
    end = text.rfind("}")
    if start == -1 or end <= start:
        return text.strip()
    return text[start : end + 1]
