"""Where ponder keeps its files. Tests point these at temporary folders."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from ponder.environment import machine


def data_dir() -> Path:
    """Checkpoints and run history (``PONDER_DATA_DIR`` overrides)."""
    return _ensure(machine().data_dir or platformdirs.user_data_dir("ponder"))


def cache_dir() -> Path:
    """Search cache, page cache and local indexes (``PONDER_CACHE_DIR`` overrides)."""
    return _ensure(machine().cache_dir or platformdirs.user_cache_dir("ponder"))


def _ensure(path: str) -> Path:
    folder = Path(path).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def database_url() -> str | None:
    """A PostgreSQL database shared by several machines (``PONDER_DATABASE_URL``) for
    checkpoints and run history; None keeps them in SQLite in the data folder."""
    return machine().database_url


def redacted(url: str) -> str:
    """Where a database URL points, without its password (nor anything unparsable)."""
    parts = _conninfo(url)
    if parts is None:
        return "the database in PONDER_DATABASE_URL"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host') or 'localhost'}{port}/{parts.get('dbname', '')}"


def secrets_of(url: str) -> list[str]:
    """The strings a message about this URL must not show: the URL and its password."""
    parts = _conninfo(url) or {}
    return [s for s in (url, parts.get("password")) if s]


def _conninfo(url: str) -> dict[str, str] | None:
    try:
        from psycopg.conninfo import conninfo_to_dict

        return {k: str(v) for k, v in conninfo_to_dict(url).items()}
    except Exception:  # not installed, or not a connection string at all
        return None
