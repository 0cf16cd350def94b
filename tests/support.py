"""Helpers shared by several test modules."""

from __future__ import annotations

import json


def make_pdf(lines: list[str]) -> bytes:
    """A minimal one-page PDF whose text pypdf can extract."""
    ops = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({t}) '" for t in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(ops)} >>\nstream\n{ops}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = "%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode("latin-1")


class WebStub:
    """A SearXNG JSON API and the pages it links to, on 127.0.0.1 (for boundary tests)."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs, urlsplit

        stub = self
        self.requests: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stub.requests.append(self.path)
                parts = urlsplit(self.path)
                if parts.path == "/search":
                    query = parse_qs(parts.query).get("q", [""])[0]
                    results = [
                        {"url": f"{stub.url}/page/{i}", "title": f"Page {i}",
                         "content": f"Snippet {i} about {query}."}
                        for i in range(2)
                    ]  # fmt: skip
                    body, kind = json.dumps({"results": results}).encode(), "application/json"
                else:
                    text = "<p>Tides rise twice a day because the Moon pulls the oceans.</p>"
                    body, kind = (
                        f"<html><body><article>{text * 5}</article></body></html>".encode(),
                        "text/html",
                    )
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
