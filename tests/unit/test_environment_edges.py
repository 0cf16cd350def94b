"""The machine's settings and the keys are read at the edges and passed down: below the API
and the interfaces, nothing asks the environment for them."""

from __future__ import annotations

import ast
from pathlib import Path

import ponder

PACKAGE = Path(ponder.__file__).parent
READERS = {"read_environment", "machine", "secret"}  # ponder.settings.environment's
EDGES = ("api/", "interfaces/", "testing/")  # the API, the interfaces, the rig (a program)
# A run LangGraph starts (LangGraph Server, Studio) reaches ponder first in its first node.
SERVED_EDGE = "settings/run_settings.py"


def reads(source: str) -> list[str]:
    """The environment readers a module calls, and each os.environ or os.getenv it names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in READERS:
                found.append((node.lineno, f"{node.func.id}() line {node.lineno}"))
        elif isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
            found.append((node.lineno, f"os.{node.attr} line {node.lineno}"))
    return [text for _, text in sorted(found)]


def test_the_reader_finds_what_it_looks_for() -> None:
    sample = "import os\nmachine()\nx.secret('A')\nos.environ.get('A')\nos.getenv('B')\n"
    assert reads(sample) == ["machine() line 2", "os.environ line 4", "os.getenv line 5"]


def test_only_the_edges_read_the_machines_settings_and_the_keys() -> None:
    below = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith(EDGES) or name in (SERVED_EDGE, "settings/environment.py"):
            continue
        if name == "services/text/sandbox.py":  # hands the environment on to its child
            continue
        if found := reads(path.read_text()):
            below[name] = found
    assert below == {}, "read these at an edge (api/, interfaces/) and pass them down"
