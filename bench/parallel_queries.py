"""Parallel queries: a round of 5 queries against a slow SearXNG costs about what a round of
1 does (target ≤ 1.5×), since a round's queries run at once."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tides import FACTS, TOPIC, research

from ponder.testing import Rig, ScriptedBackend


@contextmanager
def slow_searxng(delay: float) -> Iterator[str]:
    """A SearXNG JSON API on 127.0.0.1 that answers every query after ``delay`` seconds."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            time.sleep(delay)
            query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
            slug = "-".join(query.split())
            results = [
                {"url": f"https://web.example/{slug}/{i}", "title": query, "content": FACTS[i]}
                for i in range(3)
            ]
            data = json.dumps({"results": results}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return None

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 64

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def bench_queries(delay: float = 0.5) -> dict[str, Any]:
    timings: dict[int, float] = {}
    with slow_searxng(delay) as searxng:
        for count in (1, 5, 1, 5):  # each measured twice; the second (warm) run counts
            # The question itself is always searched; the model adds count - 1 queries (a
            # repeat of the question adds none).
            queries = [f"tides question {i}" for i in range(count - 1)] or [TOPIC]
            backend = ScriptedBackend(
                overrides={"QueryPlan": {"rationale": "r", "queries": queries}}
            )
            with Rig(backend) as rig:
                report = research(
                    TOPIC,
                    model="scripted",
                    ollama_base_url=rig.url,
                    search="searxng",
                    searxng_url=searxng,
                    cache=False,
                    mode="loop",
                    max_loops=1,
                    queries_per_round=count,
                )
            assert report.stats.search_calls == count, report.stats
            timings[count] = report.stats.node_seconds["web_research"]
    ratio = timings[5] / timings[1]
    return {
        "server_delay_s": delay,
        "one_query_round_s": round(timings[1], 3),
        "five_query_round_s": round(timings[5], 3),
        "ratio": round(ratio, 2),
        "target_met": ratio <= 1.5,
    }
