"""Which Wikipedia edition a question belongs to: its language, when that is clear.

py3langid (langid.py's maintained fork: a naive Bayes model over byte n-grams, 97
languages, numpy only) names the language with a calibrated probability. A question is
short, so only a confident answer is taken; otherwise English, the largest edition.
The model loads once per process (a few seconds), on first use.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

DEFAULT_LANGUAGE = "en"
MIN_CONFIDENCE = 0.5
# py3langid's code -> the edition's subdomain, where they differ.
_EDITIONS = {"nb": "no"}
_LOCK = threading.Lock()


@functools.cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def wikipedia_language(text: str) -> str:
    """The edition for ``text``: its language when the model is confident, else English."""
    if not text.strip():
        return DEFAULT_LANGUAGE
    with _LOCK:  # one load, and the identifier is not made for concurrent use
        language, confidence = _identifier().classify(text)
    if confidence < MIN_CONFIDENCE:
        return DEFAULT_LANGUAGE
    return _EDITIONS.get(language, language)


def edition_url(template: str, language: str) -> str:
    """``wikipedia_url`` for one edition: ``{lang}`` filled in (a mirror may have none)."""
    return template.replace("{lang}", language)
