"""A test is an edge too: it reads the machine's settings (its own folders, which the
``isolated`` fixture sets) and the keys, and passes them to what it calls below the API."""

from __future__ import annotations

from pathlib import Path

from ponder.services.storage.runs import RunHistory
from ponder.settings.environment import Environment, read_environment


def here() -> Environment:
    """The machine's settings and keys as the test's environment says now."""
    return read_environment()


def cache_dir() -> Path:
    """The test's cache folder (PONDER_CACHE_DIR), where local indexes and caches go."""
    return read_environment().cache_folder


def history() -> RunHistory:
    """The run history in the test's data folder."""
    return RunHistory(read_environment().machine)
