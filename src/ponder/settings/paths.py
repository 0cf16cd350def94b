"""Where ponder keeps its files, as the machine's settings say (tests point them at
temporary folders). A folder is created where it is first used, so a folder that cannot be
created fails there, where the failure is handled (a cache turns itself off, an index is
kept in memory), not where the settings were read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import platformdirs

from ponder.core.errors import InvalidInputError
from ponder.settings.machine import Machine


def data_folder(machine: Machine) -> Path:
    """Checkpoints and run history (``PONDER_DATA_DIR``, else the user's data folder)."""
    return Path(machine.data_dir or platformdirs.user_data_dir("ponder")).expanduser()


def cache_folder(machine: Machine) -> Path:
    """Search cache, page cache and local indexes (``PONDER_CACHE_DIR``, else the user's
    cache folder)."""
    return Path(machine.cache_dir or platformdirs.user_cache_dir("ponder")).expanduser()


# Who this process is to the document indexes: their own machine's (a write-ahead log, the
# fastest for processes on one disk), the one indexer of indexes shared over a volume (a
# rollback journal, which a network filesystem can carry), or a reader of those.
IndexRole = Literal["own", "indexer", "reader"]


def index_folder(machine: Machine) -> Path:
    """The folder whose ``indexes/`` holds the document indexes (``PONDER_INDEX_DIR``, else
    the cache folder)."""
    return Path(machine.index_dir).expanduser() if machine.index_dir else cache_folder(machine)


def index_role(machine: Machine) -> IndexRole:
    if machine.index_readonly:
        return "reader"
    return "indexer" if machine.index_dir else "own"


def ensure(folder: Path) -> Path:
    """``folder``, created when missing (OSError when it cannot be)."""
    folder.mkdir(parents=True, exist_ok=True)
    return folder


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


# The longest path and file name Linux takes (PATH_MAX, NAME_MAX): past them every stat
# fails with ENAMETOOLONG, which pathlib's exists() raises rather than answers.
_PATH_MAX, _NAME_MAX = 4096, 255


def path_problem(raw: str) -> str | None:
    """Why ``raw`` cannot name a file or folder here, with what to do; None when it can.

    What a caller sends is checked before the disk is asked: a NUL byte, ``~nosuchuser``
    and the like raise inside pathlib and os (ValueError, RuntimeError, OSError,
    UnicodeEncodeError), which would otherwise end a request as a server error.
    """
    shown = repr(raw if len(raw) <= 80 else raw[:77] + "...")
    if not raw.strip():
        return "an empty path names no file or folder — give the folder's path"
    if "\0" in raw:
        return f"{shown} holds a NUL byte, which no file name can — remove it"
    if raw.startswith("~"):
        user = raw[1:].split("/", 1)[0]
        try:
            Path(raw).expanduser()
        except RuntimeError:
            whose = f"no user {user!r} here to expand ~{user} for" if user else "no home folder"
            return f"{shown}: there is {whose} — give the full path"
    try:
        encoded = os.fsencode(Path(raw).expanduser())
    except UnicodeEncodeError:
        return f"{shown} holds characters that no file name on this system can"
    if len(encoded) >= _PATH_MAX or any(len(part) > _NAME_MAX for part in encoded.split(b"/")):
        return f"{shown} is longer than any path this system accepts"
    return None


def split_path_list(value: Any) -> Any:
    """A list of paths given as one string is split like PATH; anything else is left as it
    is, for validation."""
    if isinstance(value, str):
        return [part for part in value.split(os.pathsep) if part]
    return value


def usable_paths(value: list[str]) -> list[str]:
    """``value`` unchanged when each path can name a file; else ValueError (for validation)
    saying why, rather than failing later inside pathlib."""
    problems = [problem for raw in value if (problem := path_problem(raw))]
    if problems:
        raise ValueError("; ".join(problems))
    return value


def usable_path(raw: str) -> Path:
    """``raw`` with ``~`` expanded and symlinks and ``..`` resolved; InvalidInputError (saying
    why and what to do) when it cannot name a file or folder."""
    problem = path_problem(raw)
    if problem is not None:
        raise InvalidInputError(f"Not a usable path: {problem}.")
    return Path(raw).expanduser().resolve()
