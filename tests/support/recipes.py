"""docs/extending.md's recipes, read as a test follows them.

A recipe is a ``## `` section of the page. Each of its fenced blocks is one step:

- a block whose first line is ``# file: PATH`` is a new file, written whole (that line
  left out);
- a block whose first line is ``# edit: PATH`` changes a file: its other lines are a hunk,
  ``" "`` a line kept, ``"-"`` one removed, ``"+"`` one added; the kept and removed lines
  must occur once in the file, in that order;
- a ``sh`` block's lines are commands, run from the checkout's root (``python`` is this
  interpreter);
- a ``text`` block is shown, not followed.

:func:`follow` does each step in a copy of the checkout, with the copy's ``src`` first on
the path, so that what the recipe adds is found as a fresh interpreter finds it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from support import ROOT

PAGE = ROOT / "docs" / "extending.md"
COPIED = ("src", "tests", "scripts", "docs", "pyproject.toml")  # what the recipes use
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
_MARK = re.compile(r"^# (file|edit): (\S+)\n")


@dataclass(frozen=True)
class Step:
    kind: str  # "file", "edit" or "run"
    path: str  # the file, from the checkout's root ("" for a command)
    text: str  # the file, the hunk or the command


@dataclass
class Recipe:
    title: str
    steps: list[Step] = field(default_factory=list)

    def paths(self, kind: str) -> list[str]:
        return list(dict.fromkeys(s.path for s in self.steps if s.kind == kind))

    def commands(self) -> list[str]:
        return [s.text for s in self.steps if s.kind == "run"]


def recipes(page: str | None = None) -> dict[str, Recipe]:
    """Each recipe of the page, by its title; a block that is no step is a ValueError."""
    text = PAGE.read_text(encoding="utf-8") if page is None else page
    found: dict[str, Recipe] = {}
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        title, _, body = section.partition("\n")
        recipe = Recipe(title.strip())
        for block in _FENCE.finditer(body):
            recipe.steps.extend(_steps(recipe.title, block.group(1), block.group(2)))
        if recipe.steps:
            found[recipe.title] = recipe
    return found


def _steps(title: str, language: str, block: str) -> list[Step]:
    if language == "text":
        return []
    if language == "sh":
        lines = [line.split(" #", 1)[0].strip() for line in block.splitlines()]
        return [Step("run", "", line) for line in lines if line and not line.startswith("#")]
    mark = _MARK.match(block)
    if mark is None:
        raise ValueError(f"{title!r}: a {language} block without '# file:' or '# edit:'")
    return [Step(mark.group(1), mark.group(2), block[mark.end() :])]


def edited(text: str, hunk: str) -> str:
    """``text`` with ``hunk`` applied; ValueError unless its old lines occur exactly once."""
    old: list[str] = []
    new: list[str] = []
    for line in hunk.splitlines():
        mark, rest = line[:1], line[1:]
        if mark not in ("", " ", "-", "+"):
            raise ValueError(f"a hunk's line starts with ' ', '-' or '+': {line!r}")
        if mark != "+":
            old.append(rest)
        if mark != "-":
            new.append(rest)
    before, after = "\n" + "\n".join(old) + "\n", "\n" + "\n".join(new) + "\n"
    text = "\n" + text
    at = [i for i in range(len(text)) if text.startswith(before, i)]  # overlapping too
    if len(at) != 1:
        raise ValueError(f"the hunk's old lines occur {len(at)} times, not once:{before}")
    return (text[: at[0]] + after + text[at[0] + len(before) :])[1:]


def copy_checkout(into: Path) -> Path:
    """The parts of the checkout the recipes use, copied (never linked: a script that
    rewrites a generated file must rewrite the copy's)."""
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            ignored = shutil.ignore_patterns("__pycache__", ".pytest_cache")
            shutil.copytree(source, into / name, ignore=ignored)
        else:
            shutil.copy2(source, into / name)
    return into


def apply(recipe: Recipe, root: Path) -> None:
    """The recipe's files written and its edits made, in ``root`` (a copy)."""
    for step in recipe.steps:
        target = root / step.path
        if step.kind == "file":
            if target.exists():
                raise FileExistsError(f"{step.path} exists already: the toy would replace it")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.text, encoding="utf-8")
        elif step.kind == "edit":
            target.write_text(edited(target.read_text(encoding="utf-8"), step.text), "utf-8")


@dataclass(frozen=True)
class Ran:
    command: str
    returncode: int
    output: str


def run(command: str, root: Path) -> Ran:
    """One of the recipe's commands, in the copy: ``python`` is this interpreter, with the
    copy's ``src`` first on its path; pytest keeps its files in the copy."""
    words = shlex.split(command)
    if words[0] != "python":
        raise ValueError(f"a recipe's command runs python: {command!r}")
    words[0] = sys.executable
    if words[1:3] == ["-m", "pytest"]:
        words[3:3] = ["-q", "-p", "no:cacheprovider", f"--basetemp={root / '.pytest-tmp'}"]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environment["PYTHONPATH"] = str(root / "src")
    done = subprocess.run(
        words, cwd=root, env=environment, capture_output=True, text=True, timeout=120
    )
    return Ran(command, done.returncode, done.stdout + done.stderr)


def follow(recipe: Recipe, into: Path) -> tuple[Path, list[Ran]]:
    """The recipe followed in a copy of the checkout made in ``into``: its files, its
    edits, then its commands, each run even when one before it failed."""
    root = copy_checkout(into)
    apply(recipe, root)
    return root, [run(command, root) for command in recipe.commands()]


def changed(root: Path) -> set[str]:
    """The files of ``root`` (a copy) that differ from the checkout's or are new."""
    found = set()
    for name in COPIED:
        for path in [root / name] if (root / name).is_file() else (root / name).rglob("*"):
            if not path.is_file() or {"__pycache__", ".pytest-tmp"} & set(path.parts):
                continue
            relative = path.relative_to(root)
            original = ROOT / relative
            if not original.is_file() or original.read_bytes() != path.read_bytes():
                found.add(relative.as_posix())
    return found
