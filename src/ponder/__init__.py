"""ponder: a local-first deep-research agent.

from ponder import export, research
report = research("How do tides work?", search="local", docs=["~/notes"])
print(report.markdown)
Path("tides.pdf").write_bytes(export(report, "pdf"))  # or docx, odt, bib, ris, csl.json

Names are imported on first use (PEP 562), so ``import ponder`` and ``ponder --help`` stay
fast: pydantic, LangGraph and the Ollama client load only when a run needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ponder.settings import search_backends as _search_backends

# The search backends register themselves; the root, which every import passes through,
# says where they live, so the settings list them without importing services.
_search_backends.discover("ponder.services.search.backends")

if TYPE_CHECKING:
    from ponder.api import (
        aresearch,
        aresume,
        research,
        resume,
        stream,
    )
    from ponder.core.errors import (
        ClarificationNeeded,
        ConfigurationError,
        InvalidInputError,
        ModelCallError,
        ModelNotFoundError,
        OllamaUnavailableError,
        PonderError,
        SearchError,
    )
    from ponder.core.events import ProgressEvent
    from ponder.core.result import Report, RunStats, SourceRef
    from ponder.interfaces.exports import export
    from ponder.settings.configuration import Configuration

__all__ = [
    "ClarificationNeeded",
    "Configuration",
    "ConfigurationError",
    "InvalidInputError",
    "ModelCallError",
    "ModelNotFoundError",
    "OllamaUnavailableError",
    "PonderError",
    "ProgressEvent",
    "Report",
    "RunStats",
    "SearchError",
    "SourceRef",
    "aresearch",
    "aresume",
    "export",
    "research",
    "resume",
    "stream",
]

_HOME = {
    "aresearch": "ponder.api",
    "aresume": "ponder.api",
    "research": "ponder.api",
    "resume": "ponder.api",
    "stream": "ponder.api",
    "export": "ponder.interfaces.exports",
    "Configuration": "ponder.settings.configuration",
    "ClarificationNeeded": "ponder.core.errors",
    "ConfigurationError": "ponder.core.errors",
    "InvalidInputError": "ponder.core.errors",
    "ModelCallError": "ponder.core.errors",
    "ModelNotFoundError": "ponder.core.errors",
    "OllamaUnavailableError": "ponder.core.errors",
    "PonderError": "ponder.core.errors",
    "SearchError": "ponder.core.errors",
    "ProgressEvent": "ponder.core.events",
    "Report": "ponder.core.result",
    "RunStats": "ponder.core.result",
    "SourceRef": "ponder.core.result",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'ponder' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
