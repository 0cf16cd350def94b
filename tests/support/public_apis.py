"""Local HTTP servers that answer as Wikipedia's Action API and arXiv's query API do.

The shapes follow the APIs' documentation: MediaWiki's ``formatversion=2`` JSON for
``list=search`` and ``prop=extracts|info`` (errors as ``{"error": {code, info}}`` with
HTTP 200, ``maxlag`` with ``Retry-After``), arXiv's Atom feed (opensearch counts, entries
with authors, links and categories; errors as one entry titled ``Error``; throttling as a
bare ``Rate exceeded.``). The articles and papers are small fixtures written for these
tests: facts about tides in our own words, not copies of either site.

Each server records every request (path, parameters, User-Agent, time); ``mode`` makes it
misbehave: ``queue`` lists modes for the next requests, one each, before ``mode`` again.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

ARTICLES = {
    "Tide": (
        "Tides are the rise and fall of sea levels caused by the gravity of the Moon and the "
        "Sun acting on the rotating Earth. Most coasts see two high waters and two low "
        "waters in about a day.\n\n\n"
        "== Causes ==\n"
        "The Moon pulls hardest on the side of the Earth that faces it, and least on the far "
        "side, so the oceans bulge on both sides. The Earth turns under the two bulges, "
        "which is why a coast meets two high tides a day.\n\n\n"
        "== Spring and neap tides ==\n"
        "When the Sun and the Moon line up, at new and full Moon, their pulls add up and the "
        "range is largest: spring tides. At the quarter Moons they pull at right angles and "
        "the range is smallest: neap tides.\n\n\n"
        "== See also ==\n\n\n"
        "== References =="
    ),
    "Tidal bore": (
        "A tidal bore is a wave that travels up a river or narrow bay against the current "
        "when the incoming tide is strong and the estuary is shallow and funnel-shaped.\n\n\n"
        "== Occurrence ==\n"
        "Bores form where the tidal range is large, often more than six metres, and the "
        "river mouth narrows quickly, concentrating the flood tide into a single front."
    ),
    "Moon": (
        "The Moon is the Earth's only natural satellite. Its gravity raises the tides and "
        "slowly lengthens the day as tidal friction transfers rotation to the Moon's orbit."
    ),
}
PAPERS = [
    {
        "id": "2301.01234v2",
        "title": "Tidal dissipation in shallow\n      seas and the lengthening of the day",
        "authors": ["A. Marin", "B. Okafor", "C. Lindqvist", "D. Sato"],
        "published": "2023-01-04T18:00:01Z",
        "summary": "We estimate how much tidal energy shallow seas dissipate and how that\n"
        "    friction slows the Earth's rotation, lengthening the day by about two\n"
        "    milliseconds per century.",
        "category": "physics.ao-ph",
    },
    {
        "id": "2209.04567v1",
        "title": "Spring-neap cycles of tidal bores in funnel-shaped estuaries",
        "authors": ["E. Duarte"],
        "published": "2022-09-09T12:30:00Z",
        "summary": "Tidal bores appear during spring tides and vanish at neap tides in the "
        "estuaries we observed; the threshold depends on the tidal range and depth.",
        "category": "physics.flu-dyn",
    },
    {
        "id": "1907.08910v3",
        "title": "Lunar gravity and ocean tides: a numerical model",
        "authors": ["F. Nakamura", "G. Weiss"],
        "published": "2019-07-19T09:00:00Z",
        "summary": "A global numerical model of ocean tides forced by lunar and solar gravity "
        "reproduces the observed two high tides a day and the spring-neap cycle.",
        "category": "physics.geo-ph",
    },
]
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> set[str]:
    return {w.lower().rstrip("s") for w in _WORD.findall(text)}


@dataclass
class Request:
    path: str
    params: dict[str, str]
    user_agent: str
    at: float


@dataclass
class FakeApi:
    """A threaded local HTTP server; ``answer(request)`` gives (status, headers, body)."""

    answer: Callable[[FakeApi, Request], tuple[int, dict[str, str], str | bytes]]
    mode: str = "ok"
    queue: list[str] = field(default_factory=list)
    delay: float = 0.0
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                request = Request(parts.path, params, self.headers.get("User-Agent", ""), 0.0)
                request.at = time.monotonic()
                fake.requests.append(request)
                if fake.delay:
                    time.sleep(fake.delay)
                status, headers, body = fake.answer(fake, request)
                data = body.encode() if isinstance(body, str) else body
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def next_mode(self) -> str:
        return self.queue.pop(0) if self.queue else self.mode

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- MediaWiki ------------------------------------------------------------------------------

JSON = {"Content-Type": "application/json; charset=utf-8"}


def mediawiki(fake: FakeApi, request: Request) -> tuple[int, dict[str, str], str]:
    mode = fake.next_mode()
    if mode == "maxlag":
        lag = {"code": "maxlag", "info": "Waiting for 10.64.0.12: 6 seconds lagged"}
        error = {**lag, "host": "10.64.0.12", "lag": 6, "type": "db", "*": "See /w/api.php"}
        headers = {**JSON, "Retry-After": "1", "X-Database-Lag": "6"}
        return 200, headers, json.dumps({"error": error, "servedby": "mw2301"})
    if mode == "ratelimited":
        info = "You've exceeded your rate limit. Please wait some time and try again."
        return 200, JSON, json.dumps({"error": {"code": "ratelimited", "info": info}})
    if mode == "badvalue":
        info = 'Unrecognized value for parameter "list": nosuchlist.'
        return 200, JSON, json.dumps({"error": {"code": "badvalue", "info": info}})
    if mode == "429":
        return 429, {"Retry-After": "120", "Content-Type": "text/plain"}, "Too many requests"
    if mode == "503":
        return 503, {"Retry-After": "1", "Content-Type": "text/html"}, "<h1>Unavailable</h1>"
    if mode == "html":
        return 200, {"Content-Type": "text/html"}, "<html><body>Main Page</body></html>"
    if request.params.get("list") == "search":
        return 200, JSON, json.dumps(_search(request.params, fake.url, empty=mode == "empty"))
    if "extracts" in request.params.get("prop", ""):
        return 200, JSON, json.dumps(_extract(request.params.get("titles", ""), fake.url))
    return 200, JSON, json.dumps({"batchcomplete": True})


def _search(params: dict[str, str], url: str, empty: bool) -> dict[str, Any]:
    asked = words(params.get("srsearch", ""))
    scored = [
        (len(asked & words(f"{title} {text}")), title)
        for title, text in ARTICLES.items()
        if not empty
    ]
    hits = [title for score, title in sorted(scored, key=lambda s: -s[0]) if score]
    limit = int(params.get("srlimit", 10))
    found = [
        {
            "ns": 0,
            "title": title,
            "pageid": 1000 + number,
            "size": len(ARTICLES[title]),
            "wordcount": len(ARTICLES[title].split()),
            "snippet": f'<span class="searchmatch">{title}</span> {ARTICLES[title][:60]}',
            "timestamp": "2024-05-01T10:00:00Z",
        }
        for number, title in enumerate(hits[:limit])
    ]
    return {
        "batchcomplete": True,
        "continue": {"sroffset": len(found), "continue": "-||"},
        "query": {"searchinfo": {"totalhits": len(hits)}, "search": found},
    }


def _extract(title: str, url: str) -> dict[str, Any]:
    if title not in ARTICLES:
        return {
            "batchcomplete": True,
            "query": {"pages": [{"ns": 0, "title": title, "missing": True}]},
        }
    page_url = f"{url}/wiki/{title.replace(' ', '_')}"
    page = {
        "pageid": 1000 + list(ARTICLES).index(title),
        "ns": 0,
        "title": title,
        "extract": ARTICLES[title],
        "contentmodel": "wikitext",
        "pagelanguage": "en",
        "touched": "2024-05-01T10:00:00Z",
        "lastrevid": 1223334444,
        "length": len(ARTICLES[title]),
        "fullurl": page_url,
        "editurl": f"{page_url}?action=edit",
        "canonicalurl": page_url,
    }
    return {"batchcomplete": True, "query": {"pages": [page]}}


# -- arXiv ---------------------------------------------------------------------------------

ATOM = {"Content-Type": "application/atom+xml; charset=utf-8"}
_FEED_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
    "  <id>{url}/api/feed-id</id>\n"
    "  <title>arXiv Query: {query}</title>\n"
    "  <updated>2024-05-01T00:00:00Z</updated>\n"
    '  <link href="{url}/api/query" type="application/atom+xml"/>\n'
    "  <opensearch:itemsPerPage>{per_page}</opensearch:itemsPerPage>\n"
    "  <opensearch:totalResults>{total}</opensearch:totalResults>\n"
    "  <opensearch:startIndex>0</opensearch:startIndex>\n"
)


def arxiv(fake: FakeApi, request: Request) -> tuple[int, dict[str, str], str | bytes]:
    if request.path.startswith("/pdf/"):
        return _pdf(fake, request.path.removeprefix("/pdf/"))
    mode = fake.next_mode()
    query = request.params.get("search_query", "")
    if mode == "rate":
        return 503, {"Content-Type": "text/plain"}, "Rate exceeded."
    if mode == "503":
        return 503, {"Retry-After": "1", "Content-Type": "text/plain"}, "Service unavailable"
    if mode == "error":
        return 400, ATOM, _error_feed(fake.url, request.params.get("max_results", ""))
    if mode == "html":
        return 200, {"Content-Type": "text/html"}, "<html><body>arXiv.org</body></html>"
    asked = {w.removeprefix("all:") for w in words(query.replace("all:", " "))}
    papers = (
        []
        if mode == "empty"
        else [p for p in PAPERS if asked & words(f"{p['title']} {p['summary']}")]
    )
    papers = papers[: int(request.params.get("max_results", 10))]
    head = _FEED_HEAD.format(
        url=fake.url, query=escape(query), per_page=len(papers), total=len(papers)
    )
    return 200, ATOM, head + "".join(_entry(fake.url, p) for p in papers) + "</feed>\n"


def _entry(url: str, paper: dict[str, Any]) -> str:
    authors = "".join(f"    <author><name>{a}</name></author>\n" for a in paper["authors"])
    return (
        "  <entry>\n"
        f"    <id>{url}/abs/{paper['id']}</id>\n"
        f"    <updated>{paper['published']}</updated>\n"
        f"    <published>{paper['published']}</published>\n"
        f"    <title>{escape(paper['title'])}</title>\n"
        f"    <summary>  {escape(paper['summary'])}\n    </summary>\n"
        f"{authors}"
        f'    <link href="{url}/abs/{paper["id"]}" rel="alternate" type="text/html"/>\n'
        f'    <link title="pdf" href="{url}/pdf/{paper["id"]}" rel="related" '
        'type="application/pdf"/>\n'
        f'    <arxiv:primary_category term="{paper["category"]}"/>\n'
        f'    <category term="{paper["category"]}" scheme="http://arxiv.org/schemas/atom"/>\n'
        "  </entry>\n"
    )


def _error_feed(url: str, value: str) -> str:
    head = _FEED_HEAD.format(url=url, query=f"max_results={escape(value)}", per_page=1, total=1)
    return head + (
        "  <entry>\n"
        f"    <id>{url}/api/errors#max_results_must_be_an_integer</id>\n"
        "    <title>Error</title>\n"
        "    <summary>max_results must be an integer</summary>\n"
        "    <updated>2024-05-01T00:00:00Z</updated>\n"
        f'    <link href="{url}/api/errors#max_results_must_be_an_integer" rel="alternate" '
        'type="text/html"/>\n'
        "    <author><name>arXiv api core</name></author>\n"
        "  </entry>\n</feed>\n"
    )


def _pdf(fake: FakeApi, paper_id: str) -> tuple[int, dict[str, str], bytes]:
    paper = next((p for p in PAPERS if p["id"] == paper_id), None)
    if paper is None or fake.mode == "pdf-missing":
        return 404, {"Content-Type": "text/plain"}, b"not found"
    return 200, {"Content-Type": "application/pdf"}, paper_pdf(paper)


def paper_pdf(paper: dict[str, Any]) -> bytes:
    """A one-page PDF of the paper: its title, then a body the abstract does not hold."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    page.drawString(72, 780, " ".join(paper["title"].split()))
    page.drawString(72, 750, "1 Introduction")
    page.drawString(72, 730, f"Full text of {paper['id']}: the method section measures tides.")
    page.save()
    return out.getvalue()
