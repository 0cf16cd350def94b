"""The question a run researches: normalised, and refused with a message when it cannot be.

Every way in checks it the same way (the API, the CLI, a chat client's last message).
"""

from __future__ import annotations

import re
import unicodedata

from ponder.core.errors import InvalidInputError

MAX_TOPIC_CHARS = 2000


def clean_topic(topic: str) -> str:
    """Normalise the question; reject empty or oversized ones with a message that helps."""
    if not isinstance(topic, str):
        raise InvalidInputError('The topic must be text, e.g. research("How do tides work?").')
    text = unicodedata.normalize("NFC", topic)
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch in "\n\t")
    text = " ".join(text.split())
    if not text:
        raise InvalidInputError("The question is empty — write what you want researched.")
    if len(text) > MAX_TOPIC_CHARS:
        raise InvalidInputError(
            f"The question is {len(text)} characters; the limit is {MAX_TOPIC_CHARS}. "
            "Shorten it, or put background material in a document and pass it with --docs."
        )
    return text


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe slug: 'How do tides work?' → 'how-do-tides-work'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    result = ""
    for word in words:
        candidate = f"{result}-{word}" if result else word
        if len(candidate) > limit:
            break
        result = candidate
    return result or (words[0][:limit] if words else "report")
