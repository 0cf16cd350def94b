"""A response body read within a size limit that holds after decompression.

httpx inflates each chunk it receives in one call, so a few kilobytes of gzip-in-gzip
become gigabytes in memory before any limit is checked. Here the raw bytes are inflated by
zlib with a ceiling on each call's output: at most ``max_bytes`` ever exist, whatever the
compression ratio. One layer of gzip or deflate is what ponder asks for and accepts;
stacked or other encodings are refused.
"""

from __future__ import annotations

import zlib

import httpx

ACCEPT_ENCODING = "gzip, deflate"


class BodyRefused(Exception):
    """The body cannot be read safely; the message says why."""


async def read_body(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """The decoded body, cut at ``max_bytes``, and whether it was cut."""
    inflater = _inflater(response.headers.get("content-encoding", ""))
    buffer = bytearray()
    async for raw in response.aiter_raw():
        room = max_bytes - len(buffer)
        buffer += inflater.inflate(raw, room + 1) if inflater else raw[: room + 1]
        if len(buffer) > max_bytes:
            return bytes(buffer[:max_bytes]), True
    if inflater:
        buffer += inflater.rest(max_bytes - len(buffer) + 1)
    if len(buffer) > max_bytes:
        return bytes(buffer[:max_bytes]), True
    return bytes(buffer), False


class _Inflater:
    """gzip or zlib/raw deflate, inflated at most ``limit`` bytes per call."""

    def __init__(self, encoding: str) -> None:
        # 47 = 32 + 15: gzip or zlib, told by the header; raw deflate is tried on failure.
        self._engine = zlib.decompressobj(47 if encoding == "gzip" else 15)
        self._raw_deflate = encoding == "deflate"
        self._pending = b""

    def inflate(self, data: bytes, limit: int) -> bytes:
        data, self._pending = self._pending + data, b""
        try:
            out = self._engine.decompress(data, limit)
        except zlib.error:
            if not self._raw_deflate:
                raise BodyRefused("the compressed body is corrupt") from None
            self._engine, self._raw_deflate = zlib.decompressobj(-15), False
            return self.inflate(data, limit)
        # Whatever did not fit waits for the next call; reading stops at the limit anyway.
        self._pending = self._engine.unconsumed_tail
        return out

    def rest(self, limit: int) -> bytes:
        return self.inflate(b"", limit) if self._pending else b""


def _inflater(header: str) -> _Inflater | None:
    encodings = [e.strip().lower() for e in header.split(",") if e.strip()]
    encodings = [e for e in encodings if e != "identity"]
    if not encodings:
        return None
    if len(encodings) > 1:
        raise BodyRefused(f"stacked content encodings ({header}) are refused")
    name = {"x-gzip": "gzip"}.get(encodings[0], encodings[0])
    if name not in ("gzip", "deflate"):
        raise BodyRefused(f"unsupported content encoding '{encodings[0]}'")
    return _Inflater(name)
