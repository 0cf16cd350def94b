"""Credentials kept out of what ponder records and shows.

A URL may carry a secret: ``https://user:password@host`` or ``...?api_key=SECRET``. Run
history, warnings, error messages and statistics show such a URL with the secret replaced
by ``REDACTED`` (``https://user:REDACTED@host``); the real value is used only where it was
configured to go.
"""

from __future__ import annotations

import json
import re
from typing import Any

REDACTED = "REDACTED"

# The password of a URL's user:password@ (the user name is no secret, and says whose).
_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/?#@:]*:)[^\s/?#@]+@")
# Query parameters that carry secrets by their usual names (api_key, token, sig, …).
_SECRET_PARAM = re.compile(
    r"(?i)([?&;](?:[a-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|auth|signature)"
    r"|sig|code)=)[^&#\s\"']+"
)


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by ``REDACTED``."""
    text = _PASSWORD.sub(rf"\1{REDACTED}@", text)
    return _SECRET_PARAM.sub(rf"\1{REDACTED}", text)


def redact_value(value: Any) -> Any:
    """The same for every string in a JSON-like value (dicts, lists, keys included)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_value(k): redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(item) for item in value]
    return value


def was_redacted(value: Any) -> bool:
    """Whether a stored value had a secret taken out (so it cannot be used as it is)."""
    return REDACTED in json.dumps(value, default=str)
