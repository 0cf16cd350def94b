"""Embeddings over several Ollama hosts, as chat: a host that stops mid-way costs one failed
request, then rests while the others embed, and every passage is embedded all the same, in
an index of its own or during a run."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from support import over_corpus

from ponder import aresearch
from ponder.core.errors import OllamaUnavailableError
from ponder.services.model.hosts import REST_SECONDS
from ponder.services.search.backends.local.embeddings import BATCH, Embedder
from ponder.services.search.backends.local.index import LocalIndex
from ponder.settings.environment import read_environment
from ponder.testing import EMBED_MODEL, Rig, ScriptedBackend, TrigramEmbedder
from ponder.testing.corpus import pydoc_corpus


class HangUp:
    """A stopped host's port, now taking connections and closing them unanswered: the
    attempts to reach the host can be counted."""

    def __init__(self, port: int) -> None:
        self.connections = 0
        self._socket = socket.socket()
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", port))
        self._socket.listen()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:  # closed
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._socket.close()


@pytest.fixture
def two_embed_rigs() -> Iterator[tuple[Rig, Rig]]:
    with ExitStack() as stack:
        rigs = [
            stack.enter_context(
                Rig(ScriptedBackend(), embedder=TrigramEmbedder(), embed_models=(EMBED_MODEL,))
            )
            for _ in range(2)
        ]
        yield rigs[0], rigs[1]


def test_a_host_stopped_mid_way_is_skipped_and_every_passage_embedded(
    tmp_path: Path, two_embed_rigs: tuple[Rig, Rig]
) -> None:
    docs = tmp_path / "docs"
    pydoc_corpus(docs, ["json", "csv", "shlex", "heapq", "argparse", "pathlib", "textwrap"])
    local = LocalIndex([docs], cache_dir=tmp_path / "cache")
    local.index()
    passages = local.status().passages
    batches = -(-passages // BATCH)
    assert batches >= 4  # enough requests to see where they go after the stop
    first, second = two_embed_rigs
    warnings: list[str] = []
    embedder = Embedder(EMBED_MODEL, [first.url, second.url], warn=warnings.append)
    hangup: list[HangUp] = []

    def stop_first_after_its_batch(done: int, _total: int) -> None:
        if done and not hangup:
            first.stop()
            hangup.append(HangUp(int(first.url.rsplit(":", 1)[1])))

    try:
        stats = local.embed(embedder, progress=stop_first_after_its_batch)
        after_the_run = hangup[0].connections
        on_second = len(second.embed_log())
        vector = embedder.query("parse a JSON document")  # still within the rest
    finally:
        for port in hangup:
            port.close()
    assert stats.embedded == passages and local.status().embedded == passages
    assert len(first.embed_log()) == 1  # the batch before it stopped
    assert on_second == batches - 1  # every other batch, the failed one again among them
    assert after_the_run == 1  # one failed attempt, then it rested (REST_SECONDS)
    assert hangup[0].connections == 1 and REST_SECONDS >= 30  # the query skipped it too
    assert vector and len(second.embed_log()) == on_second + 1
    assert len(warnings) == 1 and warnings[0].startswith(f"Ollama host {first.url} failed")


def test_embedding_with_every_host_down_says_so(tmp_path: Path) -> None:
    embedder = Embedder(EMBED_MODEL, ["http://127.0.0.1:9", "http://127.0.0.1:10"])
    with pytest.raises(OllamaUnavailableError, match=r"127\.0\.0\.1:9, http://127\.0\.0\.1:10"):
        embedder.query("anything")


class DyingEmbedder:
    """Embeds until its ``last`` request, which stops the rig and never answers."""

    def __init__(self, rig: Rig, last: int) -> None:
        self.rig, self.last, self.calls = rig, last, 0
        self.inner = TrigramEmbedder()

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == self.last:
            threading.Thread(target=self.rig.stop, daemon=True).start()
            raise ConnectionResetError("the host went away")  # the rig drops the request
        return self.inner.embed(texts)


async def test_a_run_goes_on_embedding_on_the_host_that_stays_up(
    tmp_path: Path, two_embed_rigs: tuple[Rig, Rig]
) -> None:
    docs = tmp_path / "docs"
    pydoc_corpus(docs, ["json", "csv", "shlex", "heapq", "argparse", "pathlib", "textwrap"])
    first, second = two_embed_rigs
    first.embedder = DyingEmbedder(first, last=2)
    settings = over_corpus(first, docs, mode="loop", max_loops=1, embed_model=EMBED_MODEL)
    settings["ollama_base_url"] = f"{first.url},{second.url}"
    report = await aresearch("How does json.loads decode a JSON document?", **settings)
    assert report.markdown.startswith("# ") and report.sources
    assert any(w.startswith(f"Ollama host {first.url} failed") for w in report.stats.warnings)
    assert not any("Semantic search is off" in w for w in report.stats.warnings)
    assert len(first.embed_log()) == 2  # one answered, one dropped as it stopped
    queries = [e for e in second.embed_log() if len(e.inputs) == 1]
    assert queries  # the run's queries were embedded, on the host that stayed up
    cache = read_environment().index_folder
    status = LocalIndex([docs], cache_dir=cache).status()
    assert status.embedded == status.passages > 0
