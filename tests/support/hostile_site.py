"""Pages a stranger could serve, built at run time, for the tests and the benchmark that
check a page cannot freeze, exhaust or hold ponder: each is a route of ``support.Site``.

Sizes are parameters: the tests use sizes that show the flaw in seconds, the benchmark the
ones measured against ponder before (a 2.8 MB title flood, gigabytes behind a gzip bomb).
"""

from __future__ import annotations

import functools
import time
import zlib
from http.server import BaseHTTPRequestHandler
from typing import Any

from support import Route, Site, make_pdf, redirect, respond

HONEST = (
    "<html><head><title>Harbour tides</title></head><body><article>"
    "<p>Harbour tides rise twice a day as the Moon pulls the sea into the harbour basin.</p>"
    "<p>Pilots read tide tables before ships enter shallow harbours at high tide.</p>"
    "</article></body></html>"
)
LEAD = "<p>Harbour tides rise twice a day as the Moon pulls the sea.</p>"


def title_flood(size: int) -> str:
    """Unclosed <title> tags: a lazy regex up to </title> rescans the rest from each one."""
    return "<html><head>" + "<title>" * (size // 7) + "</head><body>" + LEAD + "</body></html>"


def script_flood(size: int) -> str:
    """Unclosed <script> tags, the same shape for a regex that strips scripts."""
    return "<html><body>" + LEAD + "<script>" * (size // 8) + "</body></html>"


def nested(depth: int) -> str:
    """Elements nested far past what HTML parsers allow (libxml2 stops at 256)."""
    return "<html><body>" + "<div>" * depth + LEAD + "</div>" * depth + "</body></html>"


def one_line(size: int) -> str:
    """A huge page on one line with no spaces: word splitting, passage cutting, titles."""
    return "<html><body><p>" + "tide" * (size // 4) + "</p></body></html>"


@functools.cache
def gzip_bomb(inflated: int, layers: int = 2) -> bytes:
    """``inflated`` bytes of zeros, gzipped ``layers`` times (a few KB for gigabytes)."""
    data = _gzip_zeros(inflated)
    for _ in range(layers - 1):
        data = _gzip(data)
    return data


def _gzip_zeros(size: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    return b"".join(parts) + packer.flush()


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


def encoded(body: bytes, encoding: str, kind: str = "text/html") -> Route:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Encoding", encoding)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def trickle(every: float, total: int = 10_000) -> Route:
    """A page that sends one byte every ``every`` seconds: no single read waits long."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(total))
        handler.end_headers()
        for _ in range(total):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(every)

    return handle


def endless() -> Route:
    """A chunked stream that never ends (until the reader hangs up)."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.protocol_version = "HTTP/1.1"
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = b"<p>" + b"tide " * 1000 + b"</p>"
        while True:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))

    return handle


def silent_after_headers(seconds: float) -> Route:
    """Headers, then nothing at all for ``seconds``."""

    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        handler.wfile.flush()
        time.sleep(seconds)

    return handle


def pdf_of_many_pages(pages: int) -> bytes:
    """A valid PDF of ``pages`` pages that all share one content stream (small on disk)."""
    one = make_pdf(["Harbour tides rise twice a day as the Moon pulls the sea."])
    head, _, _ = one.partition(b"xref")
    # Page 3 is the only page; list it ``pages`` times in the page tree.
    kids = b" ".join(b"3 0 R" for _ in range(pages))
    head = head.replace(b"/Kids [3 0 R] /Count 1", b"/Kids [" + kids + b"] /Count %d" % pages)
    return _with_xref(head)


def _with_xref(body: bytes) -> bytes:
    """The PDF's objects with a freshly computed cross-reference table."""
    import re

    offsets = [m.start() for m in re.finditer(rb"(?m)^\d+ 0 obj", body)]
    xref = len(body)
    table = b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    table += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(offsets) + 1,
        xref,
    )
    return body + table + trailer


def hostile_site(scale: str = "test", slow: bool = True) -> tuple[Site, dict[str, str]]:
    """A SearXNG stand-in whose results lead to every hostile page and one honest page.

    ``scale`` is "test" (each flaw shows in seconds before it was fixed) or "bench" (the
    sizes measured in issue 31). Without ``slow``, the pages that only make the reader wait
    for its deadline (trickle, silence) are left out. Returns each page's path by name.
    """
    big = scale == "bench"
    pages: dict[str, Route] = {
        "honest": respond(HONEST),
        "title-flood": respond(title_flood(2_800_000 if big else 200_000)),
        "script-flood": respond(script_flood(2_800_000 if big else 200_000)),
        "nested": respond(nested(100_000)),
        "one-line": respond(one_line(2_900_000)),
        "gzip-bomb": encoded(gzip_bomb((4 << 30) if big else (256 << 20)), "gzip, gzip"),
        "trickle": trickle(2.0),
        "endless": endless(),
        "silent": silent_after_headers(600),
        "pdf-pages": respond(pdf_of_many_pages(200_000 if big else 20_000), "application/pdf"),
        "pdf-bomb": respond(pdf_bomb((2 << 30) if big else (256 << 20)), "application/pdf"),
    }
    if not slow:
        del pages["trickle"], pages["silent"]
    site = Site()
    paths = {name: f"/page/{name}" for name in pages}
    for name, route in pages.items():
        site.routes[paths[name]] = route
    site.routes["/page/loop"] = redirect("/page/loop")
    paths["loop"] = "/page/loop"
    results = [
        {"url": site.url + path, "title": name, "content": "Harbour tides."}
        for name, path in paths.items()
    ]
    import json

    site.routes["/search"] = respond(json.dumps({"results": results}), "application/json")
    return site, paths


def hostile_settings(rig: Any, site: Site, **extra: Any) -> dict[str, Any]:
    """A run that reads every result in full, from a local server (private addresses on)."""
    return {
        "model": "scripted",
        "ollama_base_url": rig.url,
        "search": "searxng",
        "searxng_url": site.url,
        "fetch_full_page": True,
        "allow_private_urls": True,
        "mode": "loop",
        "max_loops": 1,
        "results_per_query": 20,
        "cache": False,
        **extra,
    }


def pdf_bomb(inflated: int) -> bytes:
    """A one-page PDF whose content stream is small deflated and ``inflated`` bytes inflated."""
    ops = b"BT /F1 12 Tf 72 720 Td (Harbour tides rise twice a day.) Tj ET\n"
    packer = zlib.compressobj(9)
    block = b" " * (1 << 20)
    stream = packer.compress(ops)
    stream += b"".join(packer.compress(block) for _ in range(inflated // len(block)))
    stream += packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    body = b"%PDF-1.4\n" + b"".join(
        b"%d 0 obj\n%s\nendobj\n" % (number, obj) for number, obj in enumerate(objects, start=1)
    )
    return _with_xref(body)
