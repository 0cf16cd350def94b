"""Semantic search: passages embedded through the rig's /api/embed, stored once, fused with
BM25 by their rescaled scores. The trigram embedder proves the plumbing and the fusion; the tiny
model proves the rig embeds with a real model. Neither claims semantic quality."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import over_corpus
from support.edges import cache_dir, here

from ponder import research
from ponder.core.errors import ModelNotFoundError, OllamaUnavailableError
from ponder.interfaces.cli import main
from ponder.interfaces.doctor import run_checks
from ponder.services.search import Embedder, FolderIndexes, LocalIndex, index_status, make_search
from ponder.services.search.backends.local.embeddings import BATCH, prefixes, same_model
from ponder.services.search.backends.local.fusion import fuse
from ponder.services.search.backends.local.index import index_path
from ponder.settings.configuration import Configuration
from ponder.testing import EMBED_MODEL, Rig, ScriptedBackend, TrigramEmbedder
from ponder.testing.corpus import pydoc_corpus

OTHER_MODEL = "other-embed"


@pytest.fixture
def embed_rig(scripted: ScriptedBackend) -> Iterator[Rig]:
    serves = (EMBED_MODEL, OTHER_MODEL)
    with Rig(scripted, embedder=TrigramEmbedder(), embed_models=serves) as running:
        yield running


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """Real pydoc pages, plus one British-spelled page that BM25's stemmer cannot match
    with an American query."""
    folder = tmp_path / "docs"
    pydoc_corpus(folder, ["json", "csv", "shlex", "textwrap"])
    (folder / "palette.md").write_text(
        "# Painting\n\nMixing colours: complementary colours sit opposite each other on the "
        "colour wheel, and an artist neutralises a hue with its complement.\n",
        encoding="utf-8",
    )
    return folder


def embedded(docs: Path, rig: Rig, model: str = EMBED_MODEL) -> LocalIndex:
    local = LocalIndex([docs], cache_dir=cache_dir())
    local.index()
    local.embed(Embedder(model, rig.url))
    return local


def hybrid(local: LocalIndex, rig: Rig, question: str, count: int = 5) -> list[str]:
    """File names found for ``question`` by BM25 and the rig's embeddings, fused."""
    vector = Embedder(EMBED_MODEL, rig.url).query(question)
    hits = local.search(question, count, query_vector=vector, embed_model=EMBED_MODEL)
    return [Path(hit.url).name for hit in hits]


def nearest_files(
    local: LocalIndex, rig: Rig, question: str, model: str = EMBED_MODEL
) -> list[str]:
    """File names of the passages nearest to ``question`` by vector alone, nearest first."""
    vector = Embedder(model, rig.url).query(question)
    names = []
    for chunk_id, _ in local.vectors.nearest(vector, EMBED_MODEL, 5):
        row = local._conn.execute(
            "SELECT f.path FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE c.id = ?",
            (chunk_id,),
        ).fetchone()
        names.append(Path(row[0]).name)
    return names


def sent(rig: Rig) -> list[str]:
    return [text for entry in rig.embed_log() for text in entry.inputs]


def passages_of(local: LocalIndex, name: str) -> int:
    return int(
        local._conn.execute(
            "SELECT count(*) FROM chunks AS c JOIN files AS f ON f.id = c.file_id "
            "WHERE f.path LIKE ?",
            (f"%{name}",),
        ).fetchone()[0]
    )


def test_every_passage_is_embedded_once_in_batches(docs: Path, embed_rig: Rig) -> None:
    local = embedded(docs, embed_rig)
    status = local.status()
    assert status.passages > BATCH  # several requests, not one per passage
    assert status.embedded == status.passages and status.embed_model == EMBED_MODEL
    assert len(sent(embed_rig)) == status.passages
    assert max(len(e.inputs) for e in embed_rig.embed_log()) == BATCH
    local.index()
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    assert len(sent(embed_rig)) == status.passages  # nothing new: not one more request


def test_only_changed_and_new_files_are_embedded_again(docs: Path, embed_rig: Rig) -> None:
    local = embedded(docs, embed_rig)
    before = len(sent(embed_rig))
    (docs / "csv.txt").write_text("CSV files hold one record per line.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("A note about quoting shell words.\n", encoding="utf-8")
    (docs / "shlex.txt").unlink()
    local.index()
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    again = sent(embed_rig)[before:]
    assert sorted(again) == sorted(
        ["csv\nCSV files hold one record per line.", "notes\nA note about quoting shell words."]
    )
    status = local.status()
    assert status.embedded == status.passages  # the deleted file's vectors went with it
    assert passages_of(local, "shlex.txt") == 0


def test_another_embed_model_replaces_every_vector(docs: Path, embed_rig: Rig) -> None:
    local = embedded(docs, embed_rig)
    first = len(sent(embed_rig))
    local.embed(Embedder(OTHER_MODEL, embed_rig.url))
    assert len(sent(embed_rig)) == 2 * first
    assert local.status().embed_model == OTHER_MODEL


def test_search_matrix_follows_the_table(docs: Path, embed_rig: Rig) -> None:
    """The memory-mapped matrix is rewritten when vectors change, and old files go."""
    local = embedded(docs, embed_rig)
    matrices = sorted(local.db_path.parent.glob("*.vectors-*.npy"))
    assert len(matrices) == 1
    assert "extra.txt" not in nearest_files(local, embed_rig, "rainbow arcs")
    (docs / "extra.txt").write_text("Rainbow arcs.\n", encoding="utf-8")
    local.index()
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    now = sorted(local.db_path.parent.glob("*.vectors-*.npy"))
    assert len(now) == 1 and now != matrices
    assert nearest_files(local, embed_rig, "rainbow arcs")[0] == "extra.txt"


def test_hybrid_search_finds_what_keywords_miss(docs: Path, embed_rig: Rig) -> None:
    local = embedded(docs, embed_rig)
    question = "blending colors"
    keyword_only = [r.url for r in local.search(question, 5)]
    assert not any(url.endswith("palette.md") for url in keyword_only)
    assert "palette.md" in hybrid(local, embed_rig, question)
    vector = Embedder(EMBED_MODEL, embed_rig.url).query(question)
    found = local.search(question, 5, query_vector=vector, embed_model=EMBED_MODEL)
    palette = next(r for r in found if r.url.endswith("palette.md"))
    assert "colour wheel" in palette.content and palette.location.startswith("chars ")


def test_vectors_of_another_model_are_not_compared(docs: Path, embed_rig: Rig) -> None:
    """A query embedded by another model than the stored vectors' leaves keyword search
    alone, even when the sizes match."""
    local = embedded(docs, embed_rig)
    vector = Embedder(OTHER_MODEL, embed_rig.url).query("blending colors")
    found = local.search("blending colors", 5, query_vector=vector, embed_model=OTHER_MODEL)
    assert [r.url for r in found] == [r.url for r in local.search("blending colors", 5)]


def test_bm25s_first_keeps_its_place_over_vectors_preferring_another(
    docs: Path, embed_rig: Rig
) -> None:
    """BM25 puts shlex first, the trigram vectors csv (shlex third): hybrid keeps shlex, as
    it does only when BM25's scores reach the fusion the right way round (FTS5's are
    negative, lower better; turned round, json came first)."""
    local = embedded(docs, embed_rig)
    question = "quote shell words safely"
    assert Path(local.search(question, 5)[0].url).name == "shlex.txt"
    vector = Embedder(EMBED_MODEL, embed_rig.url).query(question)
    alone = local.search("", 5, query_vector=vector, embed_model=EMBED_MODEL)
    assert [Path(r.url).name for r in alone][:3] == ["csv.txt", "textwrap.txt", "shlex.txt"]
    assert hybrid(local, embed_rig, question)[0] == "shlex.txt"


# The fusion's shape, under equal trust in both lists (the default leans on the vectors: its
# weight is the paraphrase benchmark's to choose, see fusion.py).
EQUAL = 0.5


def test_a_clear_first_outranks_a_page_both_lists_put_second() -> None:
    """Each list's top stands far above the rest: both keep their place ahead of ``m``,
    which both lists rank second by a hair — reciprocal rank fusion put ``m`` first."""
    lexical = {"a": 10.0, "m": 4.0, "x": 3.0}
    semantic = {"b": 0.90, "m": 0.84, "y": 0.83}
    assert fuse(lexical, semantic, EQUAL) == ["a", "b", "m", "x", "y"]  # a, b tie: lexical first


def test_a_page_close_to_the_top_of_both_lists_wins() -> None:
    """When neither list's first stands out, the page both rank almost as high wins."""
    lexical = {"a": 5.0, "m": 4.9, "x": 1.0}
    semantic = {"b": 0.90, "m": 0.89, "y": 0.80}
    assert fuse(lexical, semantic, EQUAL)[0] == "m"


def test_a_page_missing_from_one_list_counts_as_its_weakest_there() -> None:
    """``s`` shares no word with the query, ``w`` only its weakest match: BM25 says no more
    against ``s`` than against ``w``, so the vectors, which prefer ``s``, decide."""
    lexical = {"a": 5.0, "w": 1.0}
    semantic = {"s": 0.90, "w": 0.85, "a": 0.80}
    assert fuse(lexical, semantic, EQUAL) == ["a", "s", "w"]


def test_a_list_without_spread_still_says_what_it_found() -> None:
    # one candidate, or all equal: each is found (1), which beats not found (0)
    assert fuse({"only": 2.0}, {"x": 0.9, "only": 0.7, "y": 0.6}, EQUAL) == ["only", "x", "y"]
    assert fuse({"p": 3.0, "q": 3.0}, {"r": 0.9, "q": 0.8, "z": 0.1}, EQUAL)[0] == "q"
    assert fuse({}, {"x": 0.9, "y": 0.5}) == ["x", "y"]  # no query words: the vectors alone


def test_the_weight_moves_the_fusion_between_the_lists() -> None:
    lexical = {"a": 9.0, "b": 8.0, "c": 1.0}
    semantic = {"c": 0.90, "b": 0.85, "a": 0.50}
    assert fuse(lexical, semantic, semantic_weight=0.0) == ["a", "b", "c"]
    assert fuse(lexical, semantic, semantic_weight=1.0) == ["c", "b", "a"]
    assert fuse(lexical, semantic, EQUAL)[0] == "b"  # high in both beats first in one
    assert fuse(lexical, semantic)[0] == "b"  # and with the weight the benchmark chose


def test_known_models_get_their_task_prefixes() -> None:
    assert prefixes("nomic-embed-text:latest") == ("search_document: ", "search_query: ")
    assert same_model("nomic-embed-text", "nomic-embed-text:latest")
    assert not same_model("nomic-embed-text:v1.5", "nomic-embed-text")
    assert prefixes("embeddinggemma")[1].startswith("task: search result")
    assert prefixes("all-minilm") == ("", "")


async def test_a_run_keeps_a_document_only_semantic_search_found(
    docs: Path, embed_rig: Rig
) -> None:
    config = over_corpus(embed_rig, docs, mode="loop", max_loops=1, embed_model=EMBED_MODEL)
    report = research("How are colors blended?", **config)
    assert any(s.url.endswith("palette.md") for s in report.sources)
    assert any(entry.model == EMBED_MODEL for entry in embed_rig.embed_log())
    without = research(
        "How are colors blended?", **{**config, "embed_model": None, "thread_id": "plain"}
    )
    assert not any(s.url.endswith("palette.md") for s in without.sources)


def test_only_an_extractive_report_embeds_the_sources_it_may_quote(
    docs: Path, embed_rig: Rig, scripted: ScriptedBackend
) -> None:
    """An extractive report chooses its quotes by meaning too: after the report call, the
    question and what was read of each source are embedded. A report kept as the model wrote
    it asks for nothing more."""
    config = over_corpus(embed_rig, docs, mode="loop", max_loops=1, embed_model=EMBED_MODEL)

    def embedded_after_the_report() -> list[str]:
        report_call = max(e.start for e in embed_rig.chat_log())
        return [t for e in embed_rig.embed_log() if e.start > report_call for t in e.inputs]

    kept = research("How are colors blended?", **config)
    assert not kept.stats.extractive_report and not embedded_after_the_report()

    scripted.overrides["text"] = ""  # no prose: the report is built from notes and sources
    extractive = research("How are colors blended?", **{**config, "thread_id": "extractive"})
    assert extractive.stats.extractive_report
    after = embedded_after_the_report()
    assert any("How are colors blended?" in text for text in after)  # the question
    assert any("complementary colours sit opposite" in text for text in after)  # palette's


async def test_sources_that_cannot_be_embedded_leave_the_quotes_to_words() -> None:
    from ponder.services.report.nearness import nearness

    source = {"number": 1, "url": "/d/a.md", "title": "a", "origin": "local",
              "passages": ["Tides rise."], "locations": [""]}  # fmt: skip
    warnings: list[str] = []
    away = Embedder(EMBED_MODEL, "http://127.0.0.1:9")  # nothing answers there
    assert await nearness(away, "tides", [source], warnings.append) == {}  # type: ignore[list-item]
    assert len(warnings) == 1 and "chosen by words" in warnings[0]


# -- an Ollama without the embed model --------------------------------------------------


def test_index_command_says_to_pull_the_embed_model(
    docs: Path, rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["index", str(docs), "--embed-model", "nomic-embed-text", "--ollama-url", rig.url])
    err = capsys.readouterr().err
    assert code == ModelNotFoundError.exit_code
    assert "ollama pull nomic-embed-text" in err and "--embed-model" in err
    status = index_status([docs], cache_dir=cache_dir())
    assert status.indexed_files == 5  # the keyword index is built and kept


def test_index_command_embeds_and_reports_it(
    docs: Path, embed_rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["index", str(docs), "--embed-model", EMBED_MODEL, "--ollama-url", embed_rig.url])
    out = capsys.readouterr().out
    assert code == 0
    status = index_status([docs], cache_dir=cache_dir())
    assert f"Embedded {status.passages} passage(s) with {EMBED_MODEL}" in out
    assert f"--embed-model {EMBED_MODEL}" in out  # the search hint keeps semantic search on


def test_a_run_without_the_embed_model_warns_and_searches_by_keyword(docs: Path, rig: Rig) -> None:
    config = over_corpus(rig, docs, mode="loop", max_loops=1, embed_model="nomic-embed-text")
    report = research("How do I parse CSV files?", **config)
    assert report.sources  # BM25 went on
    warned = [w for w in report.stats.warnings if "Semantic search is off" in w]
    assert len(warned) == 1 and "ollama pull nomic-embed-text" in warned[0]


async def test_an_unreachable_ollama_turns_semantic_search_off(docs: Path) -> None:
    warnings: list[str] = []
    config = Configuration.create(
        search="local", docs=[str(docs)], embed_model=EMBED_MODEL,
        ollama_base_url="http://127.0.0.1:9",
    )  # fmt: skip
    search = make_search(config, warnings.append, environment=here())
    results = await search.search("csv reader", 3)
    assert results and results[0].url.endswith("csv.txt")
    assert any(str(OllamaUnavailableError("http://127.0.0.1:9")) in w for w in warnings)


def test_doctor_checks_the_embed_model(docs: Path, rig: Rig, embed_rig: Rig) -> None:
    missing = Configuration.create(
        ollama_base_url=rig.url, model="scripted", embed_model="nomic-embed-text"
    )
    failed = [c for c in run_checks(missing) if c.outcome == "fail"]
    assert failed and "ollama pull nomic-embed-text" in failed[0].message
    assert failed[0].exit_code == ModelNotFoundError.exit_code
    ready = Configuration.create(
        ollama_base_url=embed_rig.url, model="scripted", embed_model=EMBED_MODEL,
        search="local", docs=[str(docs)],
    )  # fmt: skip
    lines = [c.message for c in run_checks(ready)]
    assert any(f"Embed model '{EMBED_MODEL}' is available" in line for line in lines)
    assert any("not indexed yet" in line and "--embed-model" in line for line in lines)
    LocalIndex([docs], cache_dir=cache_dir()).index()
    lines = [c.message for c in run_checks(ready)]
    assert any("not embedded" in line and "--embed-model" in line for line in lines)
    embedded(docs, embed_rig)
    lines = [c.message for c in run_checks(ready)]
    assert any(f"all embedded with {EMBED_MODEL}" in line for line in lines)


class Interrupting(Embedder):
    """Ctrl-C while the second batch is with the model."""

    calls = 0

    def documents(self, passages: Any) -> list[list[float]]:
        self.calls += 1
        if self.calls == 2:
            raise KeyboardInterrupt
        return super().documents(passages)


def test_an_interrupted_pass_keeps_its_batches_and_the_next_does_the_rest(
    docs: Path, embed_rig: Rig
) -> None:
    local = LocalIndex([docs], cache_dir=cache_dir())
    local.index()
    with pytest.raises(KeyboardInterrupt):
        local.embed(Interrupting(EMBED_MODEL, embed_rig.url))
    assert local.status().embedded == BATCH
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    status = local.status()
    assert status.embedded == status.passages == len(sent(embed_rig))  # none embedded twice
    with sqlite3.connect(local.db_path) as conn:
        orphans = conn.execute(
            "SELECT count(*) FROM vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
        ).fetchone()[0]
    assert orphans == 0


class Reindexing(Embedder):
    """While the model embeds, another process changes a file and re-indexes it."""

    def __init__(self, model: str, url: str, change: Any) -> None:
        super().__init__(model, url)
        self.change = change

    def documents(self, passages: Any) -> list[list[float]]:
        vectors = super().documents(passages)
        self.change()
        return vectors


def test_a_passage_changed_while_it_was_embedded_gets_no_stale_vector(
    tmp_path: Path, embed_rig: Rig, workdir: Path
) -> None:
    folder = tmp_path / "small"
    folder.mkdir()
    (folder / "z.txt").write_text("Whales sing long songs.\n", encoding="utf-8")
    local = LocalIndex([folder], cache_dir=cache_dir())
    local.index()

    def rewrite() -> None:
        """z.txt is deleted and indexed away, then w.txt added: its passage gets the freed
        id (ids are max + 1), so the whale vector would fit the glacier's id."""
        script = (
            "from ponder.services.search import index\n"
            "from ponder.settings.environment import read_environment\n"
            f"index([{str(folder)!r}], cache_dir=read_environment().cache_folder)"
        )
        (folder / "z.txt").unlink()
        subprocess.run([sys.executable, "-c", script], cwd=workdir, check=True, timeout=60)
        (folder / "w.txt").write_text("Glaciers carve valleys.\n", encoding="utf-8")
        subprocess.run([sys.executable, "-c", script], cwd=workdir, check=True, timeout=60)

    local.embed(Reindexing(EMBED_MODEL, embed_rig.url, rewrite))
    assert local.status().embedded == 0  # the whale vector was not given to the glacier
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    assert nearest_files(local, embed_rig, "glaciers valleys") == ["w.txt"]


def test_two_searches_in_one_process_build_the_matrix_once_safely(
    docs: Path, embed_rig: Rig
) -> None:
    embedded(docs, embed_rig).close()
    for stale in docs.parent.glob("cache/indexes/*.npy"):
        stale.unlink()  # both instances must now build the matrix
    first = LocalIndex([docs], cache_dir=cache_dir())
    second = LocalIndex([docs], cache_dir=cache_dir())
    vector = Embedder(EMBED_MODEL, embed_rig.url).query("blending colors")
    results: list[Any] = []

    def search(local: LocalIndex) -> None:
        results.append(local.vectors.nearest(vector, EMBED_MODEL, 3))

    threads = [threading.Thread(target=search, args=(i,)) for i in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 2 and results[0] == results[1] and results[0]
    assert len(list(first.db_path.parent.glob("*.vectors-*.npy"))) == 1
    assert not list(first.db_path.parent.glob("*.partial"))


def test_a_recreated_index_never_reads_the_old_matrix(tmp_path: Path, embed_rig: Rig) -> None:
    """Version numbers start again in a new database; the matrix files are its own."""
    folder = tmp_path / "three"
    folder.mkdir()
    for name, text in (
        ("a", "Owls hunt at night."),
        ("b", "Ferns like shade."),
        ("c", "Tin melts."),
    ):
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    local = embedded(folder, embed_rig)
    local.close()
    for part in local.db_path.parent.glob(f"{local.db_path.name}*"):
        part.unlink()  # the user deletes the index; its matrix files stay behind
    for name, text in (("a", "Comets have tails."), ("b", "Moss grows slowly."), ("c", "Zinc.")):
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    again = embedded(folder, embed_rig)
    assert nearest_files(again, embed_rig, "comets tails")[0] == "a.txt"
    assert nearest_files(again, embed_rig, "moss growing")[0] == "b.txt"


def test_a_matrix_that_cannot_be_written_leaves_search_working(
    docs: Path, embed_rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import numpy as np

    def disk_full(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np.lib.format, "open_memmap", disk_full)
    warnings: list[str] = []
    local = LocalIndex([docs], warn=warnings.append, cache_dir=cache_dir())
    local.index()
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    assert any("Cannot write the vector matrix" in w for w in warnings)
    assert "palette.md" in hybrid(local, embed_rig, "blending colors")  # from the table
    assert not list(local.db_path.parent.glob("*.partial"))
    assert not list(local.db_path.parent.glob("*.npy"))


@pytest.mark.tiny
def test_tiny_model_embeds_through_the_rig(tmp_path: Path, scripted: ScriptedBackend) -> None:
    from ponder.testing.embedding import TINY_EMBED_MODEL
    from ponder.testing.tiny import TinyEmbedder

    folder = tmp_path / "few"
    folder.mkdir()
    (folder / "tides.txt").write_text("The Moon's gravity raises the tides.\n", encoding="utf-8")
    (folder / "bees.txt").write_text("Bees dance to show where flowers are.\n", encoding="utf-8")
    with (
        TinyEmbedder() as tiny,
        Rig(scripted, embedder=tiny, embed_models=(TINY_EMBED_MODEL,)) as rig,
    ):
        local = LocalIndex([folder], cache_dir=cache_dir())
        local.index()
        stats = local.embed(Embedder(TINY_EMBED_MODEL, rig.url))
        assert stats.embedded == 2
        vector = Embedder(TINY_EMBED_MODEL, rig.url).query("ocean tides")
        assert len(vector) == 640
        hits = local.search("ocean tides", 2, query_vector=vector, embed_model=TINY_EMBED_MODEL)
        assert {h.url.rsplit("/", 1)[-1] for h in hits} == {"tides.txt", "bees.txt"}
        assert hits[0].url.endswith("tides.txt")  # BM25 and vectors both put it in their lists


def test_a_wrong_embed_model_name_loses_no_vectors(docs: Path, embed_rig: Rig) -> None:
    local = embedded(docs, embed_rig)
    before = local.status()
    with pytest.raises(ModelNotFoundError, match="ollama pull nomic-embed-text"):
        local.embed(Embedder("nomic-embed-text", embed_rig.url))
    after = local.status()
    assert after.embed_model == EMBED_MODEL and after.embedded == before.embedded
    assert "palette.md" in hybrid(local, embed_rig, "blending colors")


def test_a_model_replaced_under_its_name_is_embedded_again(docs: Path, embed_rig: Rig) -> None:
    """Vectors of two sizes cannot share a matrix: the index starts again, then searches."""
    local = embedded(docs, embed_rig)
    first = len(sent(embed_rig))
    embed_rig.embedder = TrigramEmbedder(dimensions=128)
    (docs / "extra.txt").write_text("Rainbow arcs.\n", encoding="utf-8")
    local.index()
    local.embed(Embedder(EMBED_MODEL, embed_rig.url))
    status = local.status()
    assert status.embedded == status.passages
    assert len(sent(embed_rig)) == first + status.passages  # the new file, then all of them
    assert len(Embedder(EMBED_MODEL, embed_rig.url).query("rainbow arcs")) == 128
    assert nearest_files(local, embed_rig, "rainbow arcs")[0] == "extra.txt"


def test_a_sub_folder_gets_the_nearest_passages_of_its_own_files(
    docs: Path, embed_rig: Rig
) -> None:
    """A sub-folder is searched through its folder's index (one index, embedded once): its
    nearest passages are chosen among its own files, not the folder's."""
    art = docs / "art"
    art.mkdir()
    (art / "glazes.md").write_text(
        "# Glazes\n\nA glaze lays thin, transparent colour over dry paint.\n", encoding="utf-8"
    )
    embedded(docs, embed_rig).close()
    part = FolderIndexes([art], cache_dir=cache_dir())
    assert [unit.db_path for unit in part.units] == [index_path([docs], cache_dir())]
    vector = Embedder(EMBED_MODEL, embed_rig.url).query("blending colors")
    found = part.search("blending colors", 1, query_vector=vector, embed_model=EMBED_MODEL)
    assert [Path(r.url).name for r in found] == ["glazes.md"]  # by its vector: no word matches
    assert part.search("blending colors", 1) == []
    whole = FolderIndexes([docs], cache_dir=cache_dir())
    found = whole.search("blending colors", 1, query_vector=vector, embed_model=EMBED_MODEL)
    assert [Path(r.url).name for r in found] == ["palette.md"]
    part.close()
    whole.close()
