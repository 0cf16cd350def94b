"""The names a user chooses among, in one place: Configuration types its fields with them,
the CLI offers them as choices and the MCP tool as an enum. The search backends' names
are theirs to say (:mod:`ponder.settings.search_backends`).

Only ``typing`` is imported, so ``ponder --help`` stays fast.
"""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal["auto", "loop", "deep"]
Provider = Literal["ollama", "openai"]

MODES: tuple[str, ...] = get_args(Mode)
