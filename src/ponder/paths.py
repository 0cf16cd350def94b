"""Where ponder keeps its files. Tests point these at temporary folders."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    """Checkpoints and run history (``PONDER_DATA_DIR`` overrides)."""
    return _ensure(os.environ.get("PONDER_DATA_DIR") or platformdirs.user_data_dir("ponder"))


def cache_dir() -> Path:
    """Search cache, page cache and local indexes (``PONDER_CACHE_DIR`` overrides)."""
    return _ensure(os.environ.get("PONDER_CACHE_DIR") or platformdirs.user_cache_dir("ponder"))


def _ensure(path: str) -> Path:
    folder = Path(path).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    return folder
