"""Semantic search: the vector store at 100,000 passages, and what hybrid search costs.

- **Vector store.** 100,000 unit vectors of 768 dimensions (nomic-embed-text's size) are
  stored the way ``ponder index --embed-model`` stores them; we time ponder's store (exact
  search over a memory-mapped float32 matrix, numpy) and, on the same vectors, the
  sqlite-vec extension's ``vec0`` table (float32 and int8), loaded through apsw because
  this Python's own sqlite3 cannot load extensions. Query latency p50/p95 over 50 queries.
- **Hybrid search on real pages.** pydoc's text for 150 standard-library modules, indexed
  and embedded through the rig's ``/api/embed`` (the deterministic trigram embedder): query
  latency with BM25 alone and with BM25 + vectors fused, the query's embedding included.
- **Embedding with a real model.** The tiny gemma3 270M behind the rig's ``/api/embed``:
  passages per second on this CPU, to say how long embedding a folder takes.

Run: ``python bench/vectors.py``; ``bench/run.py`` runs it as part of ``make bench``.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PASSAGES = 100_000
DIMENSIONS = 768
QUERIES = 50
HYBRID_MODULES = 150
TINY_PASSAGES = 16


def latency(run: Callable[[Any], Any], queries: list[Any]) -> dict[str, float]:
    times = []
    for query in queries:
        started = time.perf_counter()
        run(query)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[int(0.95 * len(times)) - 1], 1),
    }


def vector_store(work: Path) -> dict[str, Any]:
    import numpy as np

    from ponder.services.search.backends.local.index import LocalIndex

    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((PASSAGES, DIMENSIONS), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = list(rng.standard_normal((QUERIES, DIMENSIONS), dtype=np.float32))

    local = LocalIndex([work], db_path=work / "index.sqlite")
    store = local.vectors
    started = time.perf_counter()
    store.conn.executemany(
        "INSERT INTO vectors VALUES (?, ?)", ((i + 1, v.tobytes()) for i, v in enumerate(vectors))
    )
    store.conn.execute("INSERT OR REPLACE INTO meta VALUES ('embed_dims', ?)", (str(DIMENSIONS),))
    store.conn.execute("INSERT OR REPLACE INTO meta VALUES ('embed_model', 'random')")
    store.conn.commit()
    stored = time.perf_counter() - started
    started = time.perf_counter()
    store.refresh_matrix()
    built = time.perf_counter() - started
    matrix_mb = sum(f.stat().st_size for f in work.glob("*.vectors-*.npy")) / 1e6
    figures: dict[str, Any] = {
        "passages": PASSAGES,
        "dimensions": DIMENSIONS,
        "store_s": round(stored, 1),
        "matrix_build_s": round(built, 1),
        "matrix_mb": round(matrix_mb),
        "numpy_memmap": latency(lambda q: store.nearest(list(q), "random", 40), queries),
    }
    # Agreement check: exact search must find each query's true nearest passage.
    truth = int(np.argmax(vectors @ queries[0])) + 1
    figures["numpy_memmap"]["exact"] = store.nearest(list(queries[0]), "random", 1)[0][0] == truth
    local.close()
    figures["sqlite_vec"] = sqlite_vec(work, vectors, queries)
    figures["stdlib_sqlite3_loads_extensions"] = hasattr(
        sqlite3.connect(":memory:"), "enable_load_extension"
    )
    return figures


def sqlite_vec(work: Path, vectors: Any, queries: list[Any]) -> dict[str, Any]:
    try:
        import apsw
        import sqlite_vec as extension
    except ImportError as exc:
        return {"not_measured": f"{exc.name} is not installed"}
    conn = apsw.Connection(str(work / "vec.sqlite"))
    conn.enable_load_extension(True)
    conn.load_extension(extension.loadable_path())
    figures: dict[str, Any] = {}
    for kind, column, wrap in (
        ("float32", f"float[{DIMENSIONS}]", "?"),
        ("int8", f"int8[{DIMENSIONS}]", "vec_quantize_int8(?, 'unit')"),
    ):
        conn.execute(f"CREATE VIRTUAL TABLE v_{kind} USING vec0(e {column})")
        with conn:
            conn.executemany(
                f"INSERT INTO v_{kind}(rowid, e) VALUES (?, {wrap})",
                ((i + 1, v.tobytes()) for i, v in enumerate(vectors)),
            )
        query = f"SELECT rowid FROM v_{kind} WHERE e MATCH {wrap} AND k = 40"
        figures[kind] = latency(
            lambda q, sql=query: conn.execute(sql, (q.tobytes(),)).fetchall(), queries
        )
    conn.close()
    return figures


def hybrid_on_pydoc(work: Path) -> dict[str, Any]:
    from ponder.services.search import Embedder, LocalIndex
    from ponder.testing import EMBED_MODEL, Rig, ScriptedBackend, TrigramEmbedder
    from ponder.testing.corpus import pydoc_corpus, stdlib_modules

    folder = work / "pydoc"
    modules = pydoc_corpus(folder, stdlib_modules(with_submodules=False)[:HYBRID_MODULES])
    questions = [f"how do I use {name} in a program" for name in modules[:QUERIES]]
    with Rig(ScriptedBackend(), embedder=TrigramEmbedder(), embed_models=(EMBED_MODEL,)) as rig:
        embedder = Embedder(EMBED_MODEL, rig.url)
        local = LocalIndex([folder], db_path=work / "pydoc.sqlite")
        local.index()
        stats = local.embed(embedder)
        bm25 = latency(lambda q: local.search(q, 5), questions)
        fused = latency(
            lambda q: local.search(q, 5, query_vector=embedder.query(q), embed_model=EMBED_MODEL),
            questions,
        )
        local.close()
    return {
        "files": len(modules),
        "passages": stats.total,
        "bm25_only": bm25,
        "hybrid_with_query_embedding": fused,
    }


def tiny_embedding(work: Path) -> dict[str, Any]:
    from ponder.services.search import Embedder
    from ponder.services.text.passages import chunk_text
    from ponder.testing import Rig, ScriptedBackend
    from ponder.testing.corpus import pydoc_text
    from ponder.testing.embedding import TINY_EMBED_MODEL
    from ponder.testing.tiny import TinyEmbedder

    text = pydoc_text("json") or ""
    passages = [("json", text[a:b]) for a, b in chunk_text(text)][:TINY_PASSAGES]
    with (
        TinyEmbedder() as embedder_backend,
        Rig(ScriptedBackend(), embedder=embedder_backend, embed_models=(TINY_EMBED_MODEL,)) as rig,
    ):
        embedder_backend.embed(["warm up"])  # loading the model is not embedding
        embedder = Embedder(TINY_EMBED_MODEL, rig.url)
        started = time.perf_counter()
        vectors = [
            v for i in range(0, len(passages), 8) for v in embedder.documents(passages[i : i + 8])
        ]
        seconds = time.perf_counter() - started
    return {
        "passages": len(vectors),
        "dimensions": len(vectors[0]),
        "chars_each": round(sum(len(t) for _, t in passages) / len(passages)),
        "passages_per_s": round(len(vectors) / seconds, 1),
    }


def run_vectors_bench(tiny: bool = True) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ponder-vectors-") as work:
        results: dict[str, Any] = {"store": vector_store(Path(work))}
        results["hybrid"] = hybrid_on_pydoc(Path(work))
        if tiny:
            results["tiny_embedding"] = tiny_embedding(Path(work))
    store = results["store"]
    results["cpus"] = os.cpu_count()
    results["chosen"] = "numpy_memmap"
    others = [f["p50_ms"] for f in store["sqlite_vec"].values() if isinstance(f, dict)]
    # Not measured (apsw or sqlite-vec missing) is not a win.
    results["chosen_is_fastest"] = bool(others) and all(
        store["numpy_memmap"]["p50_ms"] < other for other in others
    )
    return results


def main() -> None:
    import json

    print(json.dumps(run_vectors_bench(), indent=2))


if __name__ == "__main__":
    main()
