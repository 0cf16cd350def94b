"""One TLS context for every HTTP client in ponder (Ollama, SearXNG, the page reader)."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """Building a context costs ~50–100 ms of CPU; one per process is enough."""
    return httpx.create_ssl_context()
