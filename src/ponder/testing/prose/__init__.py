"""Human-written prose as a capable model's report, for measuring ponder's report checks.

``generate(root, seed)`` arranges 3-6 related pages of the Python documentation
(``ponder.testing.pydocs``) into report-shaped Markdown, each sentence cited to the page it
came from, and keeps that ground truth; ``misdirect`` points a share of the citations at
another page. ``write_in_a_run`` has the rig's scripted model (``ProseWriter``) write it in
a full run over those pages, and ``assess`` says what the finished run kept of it.
"""

from ponder.testing.prose.layout import generate
from ponder.testing.prose.markdown import render
from ponder.testing.prose.model import Excerpt, GeneratedReport, Part, Unit, misdirect, tokens
from ponder.testing.prose.score import Assessment, assess
from ponder.testing.prose.writer import ProseWriter, Written, write_in_a_run

__all__ = [
    "Assessment",
    "Excerpt",
    "GeneratedReport",
    "Part",
    "ProseWriter",
    "Unit",
    "Written",
    "assess",
    "generate",
    "misdirect",
    "render",
    "tokens",
    "write_in_a_run",
]
