"""Where a benchmark runs: its own data and cache folders, and none of the user's settings.

ponder finds its folders through ``PONDER_DATA_DIR`` and ``PONDER_CACHE_DIR``
(:mod:`ponder.settings.paths`), and a benchmark's settings could be changed by a ``PONDER_<FIELD>``
the user exported; LangSmith reads ``LANGSMITH_TRACING``. So the environment is set here,
in one place, for the length of a ``with`` block (a benchmark's ``main``, never at import),
and given back as it was.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent

try:
    import ponder  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT / "src"))


@contextlib.contextmanager
def isolated(prefix: str = "ponder-bench-") -> Iterator[Path]:
    """A fresh work folder, ponder's data and cache inside it, the model files where
    ``make install`` put them, no tracing, and no ``PONDER_<FIELD>`` of the user's."""
    from ponder.settings.configuration import Configuration

    work = Path(tempfile.mkdtemp(prefix=prefix))
    saved = dict(os.environ)
    try:
        for name in Configuration.model_fields:
            os.environ.pop(f"PONDER_{name.upper()}", None)
        os.environ["PONDER_DATA_DIR"] = str(work / "data")
        os.environ["PONDER_CACHE_DIR"] = str(work / "cache")
        os.environ.setdefault("PONDER_MODEL_DIR", str(ROOT / ".cache"))
        os.environ["LANGSMITH_TRACING"] = "false"
        yield work
    finally:
        os.environ.clear()
        os.environ.update(saved)
