"""Each recipe of docs/extending.md followed as it is written, with its toy, in a copy of
the checkout (tests/support/recipes.py): its files written, its edits made, its commands
run — the generating scripts and the recipe's own tests, in fresh interpreters that find
the toy as ponder finds a backend, a reader, a node or a page. Then nothing changed but
what the page names. Slow: each runs its commands as processes (a few seconds each)."""

from __future__ import annotations

from pathlib import Path

from support.recipes import Recipe, changed, follow, recipes

RECIPES = recipes()


def followed(title: str, workdir: Path) -> tuple[Recipe, Path]:
    recipe = RECIPES[title]
    root, ran = follow(recipe, workdir)
    for done in ran:
        assert done.returncode == 0, f"$ {done.command}\n{done.output[-6000:]}"
    return recipe, root


def written(recipe: Recipe) -> set[str]:
    return {*recipe.paths("file"), *recipe.paths("edit")}


def test_a_search_backend_is_one_folder_and_four_regenerated_files(workdir: Path) -> None:
    recipe, root = followed("A search backend", workdir)
    generated = {
        "docs/search-backends.md",
        "docs/configuration.md",
        "docs/deploy.md",
        "src/ponder/interfaces/cli/flags.py",
    }
    assert changed(root) == written(recipe) | generated
    row = "| `notes` | a JSON file of notes on this machine |"
    assert row in _read(root, "docs/search-backends.md")
    assert '"notes_file": Flag("--notes"' in _read(root, "src/ponder/interfaces/cli/flags.py")
    assert "| `notes_file` | operator | a path on the server" in _read(root, "docs/deploy.md")


def test_a_file_format_is_one_module_and_a_row_of_the_table(workdir: Path) -> None:
    recipe, root = followed("A file format", workdir)
    assert changed(root) == written(recipe) | {"docs/search.md"}
    assert "| Gemtext | `.gmi` |" in _read(root, "docs/search.md")


def test_a_graph_node_runs_in_the_graph(workdir: Path) -> None:
    recipe, root = followed("A graph node", workdir)
    assert changed(root) == written(recipe)


def test_a_ui_panel_is_served_and_in_the_menu(workdir: Path) -> None:
    recipe, root = followed("A UI panel", workdir)
    assert changed(root) == written(recipe)


def _read(root: Path, path: str) -> str:
    return (root / path).read_text(encoding="utf-8")
