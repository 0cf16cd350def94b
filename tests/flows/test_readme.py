"""The README is a front door that works: its Python example runs against the rig, each
command it shows names something that exists, and it links nothing outside the repository.

Its `ponder` commands run as processes in tests/slow/test_readme_commands.py.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ROOT
from support.public_apis import FakeApi, arxiv, mediawiki
from support.readme import (
    HEX,
    README,
    anchors,
    commands,
    links,
    make_home,
    python_examples,
    stand_ins,
)

from ponder.services.search.backends.arxiv import client as arxiv_search
from ponder.services.search.pacing import Pace
from ponder.settings.configuration import Configuration
from ponder.testing import Rig

PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# Written by another part of the work on the settings (generated from Configuration); until
# it is there, a link to it is the only one allowed to point at nothing.
GENERATED_ELSEWHERE = {ROOT / "docs" / "configuration.md"}


@pytest.fixture
def apis() -> Iterator[tuple[str, str]]:
    wiki, papers = FakeApi(mediawiki), FakeApi(arxiv)
    try:
        yield wiki.url, papers.url
    finally:
        wiki.close()
        papers.close()


def test_readme_is_short_and_names_no_commit() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert not HEX.findall(text), "the README names a commit: git keeps history, not the README"


def test_readme_shows_the_command_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
    assert ["make", "test"] in commands()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_stay_inside_the_repository_and_lead_somewhere(page: Path) -> None:
    """No address outside the repository (a clone has nothing beside it), and every file
    and heading a link names exists."""
    text = page.read_text(encoding="utf-8")
    for target in links(text):
        if page == README:
            assert not re.match(r"[a-z]+:", target), f"README links outside: {target}"
        if re.match(r"[a-z]+:", target):
            continue  # the topic pages may cite a site (Tavily's key page, …)
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
        if file in GENERATED_ELSEWHERE and not file.exists():
            continue
        assert file.exists(), f"{page.name} links to a missing file: {target}"
        if anchor and file.suffix == ".md":
            headings = anchors(file.read_text(encoding="utf-8"))
            assert anchor in headings, f"{page.name}: no heading #{anchor} in {file.name}"


def test_readme_commands_name_what_exists() -> None:
    """Each non-ponder command a reader copies: the extra pip installs is declared, the model
    ollama pulls is the default or one an example embeds with, the make target exists."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]
    targets = set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.M))
    everything = [word for words in commands() for word in words]
    embed_models = {b for a, b in itertools.pairwise(everything) if a == "--embed-model"}
    for words in commands():
        match words:
            case ["ponder", *_]:
                continue  # run in tests/slow/test_readme_commands.py
            case ["pip", "install", package]:
                extra = re.fullmatch(r"\.(?:\[(\w+)\])?", package)
                assert extra, f"pip installs something else than this checkout: {words}"
                assert extra.group(1) in (None, *extras), words
            case ["ollama", "pull", model]:
                assert model == Configuration().model or model in embed_models, words
            case ["make", target]:
                assert target in targets, words
            case _:
                pytest.fail(f"the README shows a command this test does not know: {words}")


def test_python_example_runs(
    rig: Rig, apis: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example as written, with the rig's model and local Wikipedia and arXiv servers
    in the environment and ~/notes the tests' notes about tides."""
    home = make_home(tmp_path / "home")
    for name, value in stand_ins(rig.url, home, *apis).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(arxiv_search, "PACE", Pace(0.2))  # not about arXiv's three seconds
    (example,) = python_examples()
    printed = io.StringIO()
    names: dict[str, object] = {}
    with contextlib.redirect_stdout(printed):
        exec(compile(example, str(README), "exec"), names)
    report, papers = names["report"], names["papers"]
    assert "## Sources" in report.markdown and report.cited_sources()  # type: ignore[attr-defined]
    assert str(home / "notes") in printed.getvalue()  # the sources it printed are the notes
    assert {s.url.split("/")[2] for s in papers.sources} >= {  # type: ignore[attr-defined]
        apis[0].split("/")[2],
        apis[1].split("/")[2],
    }
    assert rig.chat_log() and {e.model for e in rig.chat_log()} == {"scripted"}
