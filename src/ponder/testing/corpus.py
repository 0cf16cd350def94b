"""Realistic documents made at run time: the standard library's own pydoc pages.

Tests, the demo and the benchmarks research real technical text, not synthetic strings,
without shipping or downloading a corpus.
"""

from __future__ import annotations

import importlib
import pydoc
from collections.abc import Iterable
from pathlib import Path


def pydoc_corpus(folder: Path, modules: Iterable[str]) -> list[str]:
    """Write ``<module>.txt``, pydoc's plain-text page, for each importable module.

    Returns the modules written, in order; one that cannot be imported is left out.
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        text = pydoc.render_doc(module, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
        written.append(name)
    return written
