"""ponder: a local-first deep-research agent.

from ponder import research
report = research("How do tides work?", search="local", docs=["~/notes"])
print(report.markdown)
"""

from ponder.api import (
    ClarificationNeeded,
    aresearch,
    aresume,
    research,
    resume,
    stream,
)
from ponder.config import Configuration
from ponder.errors import (
    ConfigurationError,
    InvalidInputError,
    ModelCallError,
    ModelNotFoundError,
    OllamaUnavailableError,
    PonderError,
    SearchError,
)
from ponder.events import ProgressEvent
from ponder.report import Report, RunStats, SourceRef

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
    "research",
    "resume",
    "stream",
]
