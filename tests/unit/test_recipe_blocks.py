"""docs/extending.md's recipes still fit today's code: each edit applies, each new file is
new and compiles, and each recipe touches what the page says. tests/slow/test_recipes.py
follows them whole; this is the part `make check` can afford (nothing is run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT
from support.recipes import edited, recipes

RECIPES = recipes()
BACKEND = "A search backend"
FORMAT = "A file format"
NODE = "A graph node"
PANEL = "A UI panel"


def test_the_page_has_the_four_recipes() -> None:
    assert list(RECIPES) == [BACKEND, FORMAT, NODE, PANEL]


@pytest.mark.parametrize("title", list(RECIPES))
def test_each_edit_applies_and_each_file_is_new_python(title: str) -> None:
    texts: dict[str, str] = {}
    for step in RECIPES[title].steps:
        if step.kind == "edit":
            before = texts.get(step.path) or (ROOT / step.path).read_text(encoding="utf-8")
            texts[step.path] = edited(before, step.text)  # ValueError: the recipe is stale
        elif step.kind == "file":
            assert not (ROOT / step.path).exists(), f"{step.path}: the toy would replace it"
            texts[step.path] = step.text
    for path, text in texts.items():
        if path.endswith(".py"):
            compile(text, path, "exec")


def test_a_backend_is_one_folder_and_a_format_one_module() -> None:
    """What the recipes say of the architecture: nothing outside them is edited by hand (a
    backend's setting says itself who may set it and why)."""
    backend, reader = RECIPES[BACKEND], RECIPES[FORMAT]
    assert not backend.paths("edit")
    assert not reader.paths("edit")
    code = [p for p in backend.paths("file") if p.startswith("src/")]
    assert {str(Path(p).parent) for p in code} == {"src/ponder/services/search/backends/notes"}
    assert [p for p in reader.paths("file") if p.startswith("src/")] == [
        "src/ponder/services/search/backends/local/formats/readers/gemtext.py"
    ]


def test_a_node_and_a_panel_change_only_what_the_page_says() -> None:
    assert RECIPES[NODE].paths("edit") == ["src/ponder/graphs/loop.py", "src/ponder/core/result.py"]
    assert RECIPES[PANEL].paths("edit") == [
        "src/ponder/interfaces/ui/app.py",
        "src/ponder/interfaces/ui/pages.py",
    ]


def test_a_hunk_applies_once_or_not_at_all() -> None:
    text = "a\nb\nc\n"
    assert edited(text, " a\n-b\n+B\n c") == "a\nB\nc\n"
    with pytest.raises(ValueError, match="0 times"):
        edited(text, " a\n c")
    with pytest.raises(ValueError, match="2 times"):
        edited("x\nx\n", "-x\n+y")


def test_a_block_that_is_no_step_is_refused() -> None:
    page = "## A recipe\n\n```python\nprint('shown, never followed')\n```\n"
    with pytest.raises(ValueError, match="without '# file:' or '# edit:'"):
        recipes(page)
