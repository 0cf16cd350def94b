"""GET from a keyless public API the way its operators ask: paced, named, patient once.

Every request goes out in its host's turn (:mod:`ponder.services.search.pacing`) with a
User-Agent that names ponder and where to find it. A server that says it is busy (HTTP 429
or 503, or an API error with a ``Retry-After`` header) is asked once more after the delay
it names, still within the turn, when that delay is short; otherwise, and for every other
failure, the backend fails with a message that says what happened. Each request has a time
limit of its own, whatever the server does (a slow trickle of bytes included).

A host that timed out, could not be reached or stayed busy rests for ``REST`` seconds: the
requests queued behind it, and those of later rounds, fail at once with the same reason
instead of each waiting out its own time limit in single file.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from ponder.services.search.base import SearchBackendError
from ponder.services.search.pacing import Pace, PaceTimeout
from ponder.services.search.registry import Verdict
from ponder.services.web.reader import USER_AGENT
from ponder.services.web.tls import shared_ssl_context

MAX_RETRY_AFTER = 10.0  # seconds: a longer wait is not worth holding up a research round
REST = 120.0  # seconds a failing host is left alone
BUSY = (429, 503)
_RESTING: dict[str, tuple[float, str]] = {}  # host -> (until, why), for the whole process


def user_agent() -> str:
    """ponder's name, version and address, then the HTTP library's (Wikimedia's format)."""
    return f"{USER_AGENT} httpx/{httpx.__version__}"


class _Down(SearchBackendError):
    """The host itself failed (not the query): it rests before anyone asks again."""


class Busy(Exception):
    """The API asked to be left alone for ``seconds`` (from a ``Retry-After``)."""

    def __init__(self, reason: str, seconds: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seconds = seconds


# Reads an answer; raises Busy to be asked again, SearchBackendError to fail.
Check = Callable[[httpx.Response], Any]


async def polite_get(
    label: str,
    url: str,
    params: Mapping[str, str | int],
    pace: Pace,
    check: Check,
    *,
    timeout: float = 20.0,
    max_wait: float = 90.0,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Any:
    """``check(response)`` of a GET of ``url`` made in the host's turn; ``label`` names the
    API in messages. Raises SearchBackendError on failure."""
    host = urlsplit(url).netloc.lower()
    _refuse_if_resting(host)
    try:
        async with pace.turn(url, max_wait=max_wait):
            _refuse_if_resting(host)  # it failed for the request ahead of this one
            return await _get_twice(label, url, params, check, timeout, transport)
    except PaceTimeout:
        raise SearchBackendError(
            f"{label} was not asked: other requests held its turn for over {max_wait:g}s "
            f"(it takes one request every {pace.interval:g}s)"
        ) from None
    except _Down as down:
        _RESTING[host] = (time.monotonic() + REST, str(down))
        raise SearchBackendError(str(down)) from None


def _refuse_if_resting(host: str) -> None:
    until, why = _RESTING.get(host, (0.0, ""))
    if time.monotonic() < until:
        raise SearchBackendError(f"{why} (not asked again for {until - time.monotonic():.0f}s)")


def forget_failures() -> None:
    """Ask every host again at once (after the network came back, and in tests)."""
    _RESTING.clear()


async def _get_twice(
    label: str,
    url: str,
    params: Mapping[str, str | int],
    check: Check,
    timeout: float,
    transport: httpx.AsyncBaseTransport | None,
) -> Any:
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        headers={"User-Agent": user_agent()},
        transport=transport,
        verify=shared_ssl_context(),
        follow_redirects=True,
    ) as client:
        for attempt in (1, 2):
            response = await _get(client, label, url, params, timeout)
            try:
                return check(response)
            except Busy as busy:
                delay = retry_after(response)
                delay = busy.seconds if delay is None else delay
                if attempt == 2 or delay is None or delay > MAX_RETRY_AFTER:
                    later = f"; it asks to wait {delay:g}s" if delay is not None else ""
                    raise _Down(f"{label} is busy ({busy.reason}){later}") from None
                await asyncio.sleep(delay)
    raise AssertionError("unreachable")


async def _get(
    client: httpx.AsyncClient,
    label: str,
    url: str,
    params: Mapping[str, str | int],
    timeout: float,
) -> httpx.Response:
    try:
        async with asyncio.timeout(timeout * 2):  # bytes trickling in count too
            return await client.get(url, params=dict(params))
    except (TimeoutError, httpx.TimeoutException):
        raise _Down(f"{label} at {url} did not answer within {timeout:g}s") from None
    except httpx.HTTPError as exc:
        raise _Down(
            f"{label} at {url} is unreachable ({type(exc).__name__}) — check the network"
        ) from None


def retry_after(response: httpx.Response) -> float | None:
    """The ``Retry-After`` header in seconds (a number or an HTTP date), None without one."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def raise_for_status(label: str, response: httpx.Response) -> None:
    """Busy for 429/503, SearchBackendError for any other status that is not 200."""
    if response.status_code in BUSY:
        raise Busy(f"HTTP {response.status_code}", None)
    if response.status_code >= 500:
        raise _Down(f"{label} answered HTTP {response.status_code}")
    if response.status_code != 200:
        raise SearchBackendError(f"{label} answered HTTP {response.status_code}")


DOCTOR_SECONDS = 5.0  # `ponder doctor` asks each service once, this long at most


def reachable(name: str, url: str) -> Verdict:
    """Whether a public search service answers at all (``url`` is its address): what
    ``ponder doctor`` says of it."""
    fix = "check the network, or search your own documents with --search local --docs PATH"
    try:  # Wikimedia refuses clients that do not say who they are
        response = httpx.get(
            url, timeout=DOCTOR_SECONDS, follow_redirects=True, headers={"User-Agent": user_agent()}
        )
    except httpx.HTTPError as exc:
        return Verdict(False, f"{name} is not reachable ({type(exc).__name__}) — {fix}.")
    if response.status_code >= 400:
        return Verdict(False, f"{name} answered HTTP {response.status_code} — {fix}.")
    return Verdict(True, f"{name} is reachable")
