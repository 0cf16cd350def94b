"""A SearXNG-shaped web search over a folder of HTML pages, answering with snippets only.

Most web search gives a title, an address and a snippet, not the page. This engine is such
a search: ``GET /search?q=…&format=json`` answers SearXNG's JSON with the best pages for
the words of the query, each with a snippet around its matches. Its ranking is SQLite
FTS5's own BM25 over the pages' text (any word of the query may match), not ponder's, as a
real engine's would be its own. Page addresses are given under ``base_url`` (the docs'
public address), as a web engine would give them; nothing is fetched from there.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

RESULTS = 10
_WORD = re.compile(r"\w+")


class _Text(HTMLParser):
    """A page's title and visible text, scripts and styles left out."""

    def __init__(self) -> None:
        super().__init__()
        self.title, self.parts, self._skip, self._in_title = "", [], 0, False

    def handle_starttag(self, tag: str, _attrs: Any) -> None:
        self._skip += tag in ("script", "style")
        self._in_title = self._in_title or tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style") and self._skip > 0
        self._in_title = self._in_title and tag != "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)


def page_text(html: str) -> tuple[str, str]:
    parser = _Text()
    parser.feed(html)
    title = " ".join(parser.title.replace("¶", "").split())
    return title, " ".join(" ".join(parser.parts).replace("¶", "").split())


class SearxngEngine:
    def __init__(self, folder: Path, base_url: str) -> None:
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute("CREATE VIRTUAL TABLE pages USING fts5(url UNINDEXED, title, body)")
        rows = []
        for page in sorted(folder.rglob("*.html")):
            title, body = page_text(page.read_text(encoding="utf-8", errors="replace"))
            rows.append((base_url + page.relative_to(folder).as_posix(), title, body))
        self.db.executemany("INSERT INTO pages VALUES (?, ?, ?)", rows)
        self.lock = threading.Lock()
        self.queries: list[str] = []
        self.server: ThreadingHTTPServer | None = None

    def search(self, query: str) -> list[dict[str, str]]:
        words = [w for w in _WORD.findall(query.lower()) if len(w) > 1]
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        with self.lock:
            self.queries.append(query)
            found = self.db.execute(
                "SELECT url, title, snippet(pages, 2, '', '', ' … ', 40) FROM pages "
                "WHERE pages MATCH ? ORDER BY bm25(pages, 0.0, 5.0, 1.0) LIMIT ?",
                (match, RESULTS),
            ).fetchall()
        return [{"url": u, "title": t, "content": s} for u, t, s in found]

    def start(self) -> SearxngEngine:
        engine = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
                body = json.dumps({"query": query, "results": engine.search(query)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
