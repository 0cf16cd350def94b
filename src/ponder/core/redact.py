"""Credentials kept out of what ponder records and shows.

A URL may carry a secret: ``https://user:password@host``, ``https://TOKEN@host``,
``.../hooks/3kT9q2LmZx8Wv4Rb7NcY1p/...`` or ``...?api_key=SECRET``. Run history, warnings,
error messages and statistics show such a URL with the secret replaced by ``REDACTED``
(``https://user:REDACTED@host``); the real value is used only where it was configured to
go. A password is always a secret; a user name or a path segment is one when it looks
like a token (long, and random rather than words), so ``postgresql://ponder@db/x`` and
``https://en.wikipedia.org/wiki/Tide`` stay as they are.
"""

from __future__ import annotations

import json
import re
from typing import Any

REDACTED = "REDACTED"

_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+")
# Query parameters that carry secrets by their usual names (api_key, token, sig, …).
_SECRET_PARAM = re.compile(
    r"(?i)([?&;](?:[a-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|auth|signature)"
    r"|sig|code)=)[^&#\s\"']+"
)
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_.~+=%-]+")
_SEPARATORS = re.compile(r"[-_.~]")
_MIN_TOKEN = 20  # shorter segments are names (v1, api.php, Tide, 2401.12345v2)


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by ``REDACTED``."""
    text = _URL.sub(lambda found: _redact_url(found.group()), text)
    return _SECRET_PARAM.sub(rf"\1{REDACTED}", text)


def _redact_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    cut = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    userinfo, at, host = authority.rpartition("@")
    if at:
        user, colon, _password = userinfo.partition(":")
        if colon:  # the user name is no secret, and says whose
            userinfo = f"{REDACTED if looks_secret(user) else user}:{REDACTED}"
        elif looks_secret(user):  # a token as the user name (https://TOKEN@host)
            userinfo = REDACTED
    path, mark, after = tail.partition("?") if "?" in tail else tail.partition("#")
    path = "/".join(REDACTED if looks_secret(part) else part for part in path.split("/"))
    return f"{scheme}://{userinfo}{at}{host}{path}{mark}{after}"


def looks_secret(text: str) -> bool:
    """Whether a name looks like a token rather than a word: at least 20 characters of a
    token's alphabet, and either digits mixed into letters (a fifth or more of it digits)
    or, without separators, upper and lower case mixed (base64)."""
    if len(text) < _MIN_TOKEN or not _TOKEN_CHARS.fullmatch(text):
        return False
    letters = sum(c.isalpha() for c in text)
    digits = sum(c.isdigit() for c in text)
    if letters and digits >= len(text) / 5:
        return True
    mixed_case = any(c.isupper() for c in text) and any(c.islower() for c in text)
    return mixed_case and not _SEPARATORS.search(text)


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
