"""The vector matrix's files beside an index: their names, the partial files a build
writes first, removing stale ones, and one build at a time per index."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
from pathlib import Path

_PARTIAL_MAX_AGE = 600.0  # seconds; an older partial matrix file was abandoned


_BUILD_LOCKS: dict[str, threading.Lock] = {}


_BUILD_GUARD = threading.Lock()


# One matrix file opened at a time in this process: numpy reads an .npy header with
# ast.literal_eval, and CPython 3.11's AST constructor keeps its recursion depth per
# interpreter, not per thread, so two threads parsing at once can fail with "SystemError:
# AST constructor recursion depth mismatch" (seen with two searches opening their matrices).
OPEN_LOCK = threading.Lock()


def build_lock(db_path: Path) -> threading.Lock:
    """One matrix build at a time per index in this process (each search instance of a
    run has its own connection to the same file)."""
    with _BUILD_GUARD:
        return _BUILD_LOCKS.setdefault(str(db_path), threading.Lock())


def matrix_paths(db_path: Path, tag: str) -> tuple[Path, Path]:
    """One pair of files per database and version (``tag``): a reader never pairs new ids
    with an old matrix, nor reads the files of a database that was deleted and made again."""
    stem = db_path.stem
    return (
        db_path.with_name(f"{stem}.vectors-{tag}.npy"),
        db_path.with_name(f"{stem}.vector-ids-{tag}.npy"),
    )


def remove_stale(db_path: Path, *keep: Path) -> None:
    """Older matrices (a reader that mapped one keeps reading it) and abandoned partial
    files (another process may still be writing a recent one)."""
    stem = db_path.stem
    for old in db_path.parent.glob(f"{stem}.vector*.npy"):
        if old not in keep:
            old.unlink(missing_ok=True)
    for partial in db_path.parent.glob(f"{stem}.*.partial"):
        with contextlib.suppress(OSError):
            if time.time() - partial.stat().st_mtime > _PARTIAL_MAX_AGE:
                partial.unlink()


def partial_path(db_path: Path) -> Path:
    """A new, empty file beside the index for a build to write before moving it in place."""
    handle, name = tempfile.mkstemp(
        dir=db_path.parent, prefix=f"{db_path.stem}.", suffix=".partial"
    )
    os.close(handle)
    return Path(name)
