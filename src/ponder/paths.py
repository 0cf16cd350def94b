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


def database_url() -> str | None:
    """A PostgreSQL database shared by several machines (``PONDER_DATABASE_URL``) for
    checkpoints and run history; None keeps them in SQLite in the data folder."""
    url = os.environ.get("PONDER_DATABASE_URL", "").strip()
    return url or None


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))
