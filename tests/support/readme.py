"""The README's examples, read as a reader copies them: its code blocks and their commands.

The tests run them against the rig instead of a real Ollama and the network; what they put
in place of a real setup (the model, Ollama's address, the search APIs, the notes folder)
is :func:`stand_ins`, so an example keeps the words a user types.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from support import ROOT, write_corpus

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    language: str
    code: str


def blocks(text: str | None = None) -> list[Block]:
    """Every fenced code block of the README, in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    return [Block(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def python_examples() -> list[str]:
    return [b.code for b in blocks() if b.language == "python"]


def commands() -> list[list[str]]:
    """Each command line of the README's shell blocks, split as a shell splits it (quotes
    and comments), in order."""
    out = []
    for block in blocks():
        if block.language not in ("sh", "bash", "shell"):
            continue
        for line in block.code.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                out.append(words)
    return out


def ponder_commands() -> list[list[str]]:
    return [words for words in commands() if words[0] == "ponder"]


def expand_home(words: list[str], home: Path) -> list[str]:
    """``~`` as the shell expands it, before ponder sees the argument."""
    return [
        str(home) + word[1:] if word == "~" or word.startswith("~/") else word for word in words
    ]


def make_home(folder: Path) -> Path:
    """A home whose ``~/notes`` holds the tests' corpus about tides (the README's examples ask
    about tides and notes)."""
    write_corpus(folder / "notes")
    return folder


def stand_ins(rig_url: str, home: Path, wikipedia: str, arxiv: str) -> dict[str, str]:
    """The environment an example runs in: the rig's model at the rig's address (through
    ``OLLAMA_HOST``, as Ollama's users set it), the notes as the default search where an
    example names none (instead of the web), and local servers for Wikipedia and arXiv.
    None of these overrides what an example sets itself: a flag or keyword always wins."""
    return {
        "HOME": str(home),
        "OLLAMA_HOST": rig_url,
        "PONDER_MODEL": "scripted",
        "PONDER_SEARCH": "local",
        "PONDER_DOCS": str(home / "notes"),
        "PONDER_WIKIPEDIA_URL": f"{wikipedia}/w/api.php",
        "PONDER_ARXIV_URL": f"{arxiv}/api/query",
    }


HEX = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)|<(https?://[^>]+)>")


def links(text: str) -> list[str]:
    """The targets of a Markdown text's links and images, code blocks left out."""
    prose = FENCE.sub("", text)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    return [m.group(1) or m.group(2) for m in LINK.finditer(prose)]


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown text's headings."""
    found = set()
    for line in FENCE.sub("", text).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found
