"""Advice in the page's own words: ponder's errors are written for the command line
("choose another with --model"), and a person in `ponder ui` has no flags, only the page's
controls. Each flag an error may name is said as the control that does the same here, or,
for what only the server's operator sets, as the operator's setting."""

from __future__ import annotations

import re

# Longest first: "--search local --docs PATH" before "--search", "--docs".
_FOR_THE_PAGE = [
    (r"--search local --docs PATH", "the Search and Your documents choices"),
    (r"\(--search, --docs\)", "(the Search and Your documents choices)"),
    (r"(?:pass |add )?--docs PATH or --library FILE", "add documents on the Documents page"),
    (r"--docs PATH, --library FILE or --zim FILE\.zim", "documents on the Documents page"),
    (r"(?:pass |add )?--docs PATH", "a folder on the Documents page"),
    (r"--library FILE", "a library on the Documents page"),
    (r"--zim FILE\.zim", "an archive on the Documents page"),
    (r"(?:check )?--docs\b", "the Your documents choices"),
    (r"--search\b", "search (the Search choices)"),
    (r"with --model\b", "in the Model menu"),
    (r"--model\b", "the Model menu"),
    (r"(?:OLLAMA_HOST \(or )?--ollama-url\)?", "PONDER_OLLAMA_BASE_URL (the server's setting)"),
]
_PATTERNS = [(re.compile(pattern), words) for pattern, words in _FOR_THE_PAGE]


def for_the_page(message: str) -> str:
    """``message`` with each command-line flag said as the page's control for it."""
    for pattern, words in _PATTERNS:
        message = pattern.sub(words, message)
    return message
