"""Search and reading benchmarks: index build rate, query latency, reader parallelism.

Targets (issue 4): ≥ 300 docs/s indexing 10,000 documents, query p50 < 10 ms and
p95 < 50 ms, ten pages read concurrently in at most twice the time of one.

Run: ``PYTHONPATH=src python bench/bench_search.py``. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ponder.services.search.backends.local.index import LocalIndex
from ponder.services.web.reader import PageReader

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "or")]
_QUERIES = 200


def _vocabulary(size: int, rng: random.Random) -> list[str]:
    """``size`` distinct made-up words; their position is their frequency rank."""
    words: dict[str, None] = {}
    while len(words) < size:
        words["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(words)


# Real text follows Zipf's law: a few words everywhere, most words rare. A uniform toy
# vocabulary would make every query match nearly every passage, which no real corpus does.
_RNG = random.Random(3)
_VOCABULARY = _vocabulary(30_000, _RNG)
_WEIGHTS = [1 / rank for rank in range(1, len(_VOCABULARY) + 1)]
_CUMULATIVE = list(itertools.accumulate(_WEIGHTS))


def _paragraph(rng: random.Random) -> str:
    words = rng.choices(_VOCABULARY, cum_weights=_CUMULATIVE, k=rng.randint(20, 90))
    return " ".join(words).capitalize() + "."


def _query(rng: random.Random) -> str:
    """1-4 words: mostly topic words (ranks 50-5,000), sometimes a very common one."""
    words = [rng.choice(_VOCABULARY[50:5000]) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
        words.append(rng.choice(_VOCABULARY[:50]))
    return " ".join(words)


def make_corpus(folder: Path, count: int, seed: int = 7) -> None:
    """Write ``count`` small Markdown documents (1-6 paragraphs each) into ``folder``."""
    rng = random.Random(seed)
    for i in range(count):
        sub = folder / f"part{i % 20:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(_paragraph(rng) for _ in range(rng.randint(1, 6)))
        (sub / f"doc{i:05d}.md").write_text(f"# Document {i}\n\n{body}\n", encoding="utf-8")


def bench_index(count: int) -> dict[str, float]:
    """Index ``count`` generated documents, then time random 1-4 word queries."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "docs"
        make_corpus(corpus, count)
        index = LocalIndex([corpus], db_path=Path(tmp) / "index.sqlite")
        stats = index.index()
        rng = random.Random(11)
        latencies = []
        for _ in range(_QUERIES):
            query = _query(rng)
            started = time.perf_counter()
            index.search(query, 5)
            latencies.append((time.perf_counter() - started) * 1000)
        index.close()
    cuts = statistics.quantiles(latencies, n=100)
    return {
        "docs": count,
        "passages": stats.passages,
        "index_seconds": round(stats.seconds, 2),
        "docs_per_second": round(count / stats.seconds),
        "query_p50_ms": round(cuts[49], 2),
        "query_p95_ms": round(cuts[94], 2),
    }


class _SlowHandler(BaseHTTPRequestHandler):
    delay = 0.3

    def do_GET(self) -> None:
        time.sleep(self.delay)
        body = f"<html><body><p>Page {self.path} with some readable text.</p></body></html>"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return None


class _Server(ThreadingHTTPServer):
    request_queue_size = 64  # the default backlog of 5 drops simultaneous connections
    daemon_threads = True


@contextmanager
def _slow_server() -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), _SlowHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def _time_reads(base: str, count: int) -> float:
    reader = PageReader(allow_private=True, concurrency=10)
    started = time.perf_counter()
    pages = await reader.read_many(f"{base}/page{i}" for i in range(count))
    elapsed = time.perf_counter() - started
    if not all(page.ok for page in pages):
        raise RuntimeError(f"reader bench failed: {[p.reason for p in pages if not p.ok]}")
    return elapsed


def bench_reader() -> dict[str, float]:
    """One page versus ten at once, against a server delaying each response by 0.3 s."""
    with _slow_server() as base:
        asyncio.run(_time_reads(base, 1))  # warm-up: imports and the extractor's first run
        one = asyncio.run(_time_reads(base, 1))
        ten = asyncio.run(_time_reads(base, 10))
    return {
        "server_delay_s": _SlowHandler.delay,
        "one_page_s": round(one, 3),
        "ten_pages_s": round(ten, 3),
        "ratio": round(ten / one, 2),
    }


def run_search_bench() -> dict[str, Any]:
    """All search figures, as a dict for ``make bench``."""
    os.environ.setdefault("PONDER_CACHE_DIR", tempfile.mkdtemp(prefix="ponder-bench-"))
    return {
        "index_1000": bench_index(1_000),
        "index_10000": bench_index(10_000),
        "reader": bench_reader(),
    }


def main() -> None:
    results = run_search_bench()
    for name, figures in results.items():
        print(f"{name:12} " + "  ".join(f"{k}={v}" for k, v in figures.items()))
    big, reader = results["index_10000"], results["reader"]
    print(
        f"targets: ≥300 docs/s {'ok' if big['docs_per_second'] >= 300 else 'MISSED'} · "
        f"p50<10ms {'ok' if big['query_p50_ms'] < 10 else 'MISSED'} · "
        f"p95<50ms {'ok' if big['query_p95_ms'] < 50 else 'MISSED'} · "
        f"10 pages ≤2x one {'ok' if reader['ratio'] <= 2 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
