"""Replicas share documents through one folder: one process indexes and embeds them there,
another, with data and cache folders of its own, researches with what the first indexed,
and writes nothing there (docs/deploy.md, "Documents on a shared volume")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ponder.services.search.backends.local.shared import in_wal_mode
from ponder.testing import EMBED_MODEL, Rig, ScriptedBackend, TrigramEmbedder
from ponder.testing.corpus import pydoc_corpus

SRC = Path(__file__).resolve().parents[2] / "src"
TOPIC = "How does json.loads decode a JSON document into Python objects?"


def ponder(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    every = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "100", **env}
    return subprocess.run(
        [sys.executable, "-m", "ponder", *args],
        cwd=cwd, env=every, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def machine(folder: Path, shared: Path, **extra: str) -> dict[str, str]:
    """A replica's own data and cache folders, and the shared index folder."""
    return {
        "PONDER_DATA_DIR": str(folder / "data"),
        "PONDER_CACHE_DIR": str(folder / "cache"),
        "PONDER_INDEX_DIR": str(shared),
        **extra,
    }


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*")}


@pytest.fixture
def embed_rig() -> Rig:
    with Rig(ScriptedBackend(), embedder=TrigramEmbedder(), embed_models=(EMBED_MODEL,)) as running:
        yield running


def test_a_reader_researches_what_the_indexer_indexed_and_writes_nothing_there(
    tmp_path: Path, workdir: Path, embed_rig: Rig
) -> None:
    docs, shared = tmp_path / "docs", tmp_path / "shared"
    pydoc_corpus(docs, ["json", "csv", "shlex", "heapq"])
    indexer = machine(tmp_path / "a", shared)
    flags = ("--embed-model", EMBED_MODEL, "--ollama-url", embed_rig.url)
    done = ponder("index", str(docs), *flags, cwd=workdir, env=indexer)
    assert done.returncode == 0, done.stderr
    (database,) = (shared / "indexes").glob("*.sqlite")
    assert not in_wal_mode(database)  # a rollback journal: a network filesystem carries it
    assert list((shared / "indexes").glob("*.vectors-*.npy"))  # the indexer's matrix
    pydoc_corpus(docs, ["textwrap"])  # after the indexer ran: only a refresh would see it
    before, asked = snapshot(shared), len(embed_rig.embed_log())

    reader = machine(tmp_path / "b", shared, PONDER_INDEX_READONLY="1")
    run = ponder(
        "research", TOPIC, "--json", "--model", "scripted", "--ollama-url", embed_rig.url,
        "--search", "local", "--docs", str(docs), "--mode", "loop", "--loops", "1",
        "--embed-model", EMBED_MODEL,
        cwd=workdir, env=reader,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    cited = {Path(source["url"]).name for source in json.loads(run.stdout)["sources"]}
    assert "json.txt" in cited  # found in the index the other process wrote
    assert "textwrap.txt" not in cited  # the reader indexed nothing itself
    queries = embed_rig.embed_log()[asked:]
    assert queries and all(len(q.inputs) == 1 for q in queries)  # its queries, no passage
    refused = ponder("index", str(docs), cwd=workdir, env=reader)
    assert refused.returncode != 0 and "only reads the shared document indexes" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert snapshot(shared) == before  # no new file, none changed
    assert not (tmp_path / "b" / "cache" / "indexes").exists()
