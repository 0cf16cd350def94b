"""Can the web be reached? One quick check before a run's first round.

Offline, a search of the web does not fail once: every query of every round retries its
engines through name-resolution errors, then falls back, and the report lists the same
error thirty times. So before the first round each web backend the search uses is asked
once, all at the same time: a TCP connection to the address it would ask (through the
proxy the environment names, when there is one), within ``PROBE_SECONDS``. A backend that
cannot be reached is left out of the run — no query goes to it — and the run searches
what is left: the offline sources set up (your documents), or a SearXNG on your network.

A verdict is remembered for ``REMEMBER_SECONDS``, so the rounds and researchers of one run
ask nothing again; each new run checks afresh. The probes run in daemon threads: a name
server that never answers cannot hold a run, or the process at exit, past the deadline.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ponder.services.search.registry import web_backends

if TYPE_CHECKING:
    from ponder.settings.configuration import Configuration

PROBE_SECONDS = 3.0
_PORTS = {"https": 443, "http": 80, "socks5": 1080, "socks5h": 1080, "socks4": 1080}
REMEMBER_SECONDS = 900.0
Endpoint = tuple[str, int]

_VERDICTS: dict[Endpoint, tuple[float, str | None]] = {}  # endpoint → (when, why not)
_LOCK = threading.Lock()


@dataclass
class Reach:
    """Which of a search's web backends can be reached, and why the others cannot."""

    reachable: list[str] = field(default_factory=list)
    unreachable: dict[str, str] = field(default_factory=dict)  # backend → why

    @property
    def offline(self) -> bool:
        """No web backend of the search can be reached (it uses at least one)."""
        return bool(self.unreachable) and not self.reachable

    def why(self) -> str:
        """Each backend with the address asked and why it failed: "duckduckgo at
        https://html.duckduckgo.com/html/: its name does not resolve"."""
        return "; ".join(f"{name} at {why}" for name, why in self.unreachable.items())


def search_reach(config: Configuration, topic: str = "", *, fresh: bool = False) -> Reach:
    """Whether each web backend ``config``'s search uses can be reached (``fresh``: ask
    again, whatever was remembered)."""
    groups = {
        plugin.name: plugin.endpoints(config, topic)
        for plugin in web_backends(config)
        if plugin.endpoints is not None
    }
    verdicts = probe([url for urls in groups.values() for url in urls], fresh=fresh)
    reach = Reach()
    for name, urls in groups.items():
        reasons = [verdicts[url] for url in urls]
        if not urls or any(reason is None for reason in reasons):
            reach.reachable.append(name)
        else:  # the address is named whole: a caller's view names the operator's ones
            reach.unreachable[name] = f"{urls[0]}: {reasons[0]}"
    return reach


def probe(urls: Iterable[str], *, fresh: bool = False) -> dict[str, str | None]:
    """Each URL's verdict: None when its host accepts a connection, else why not."""
    wanted = {url: endpoint(url) for url in dict.fromkeys(urls)}
    now = time.monotonic()
    with _LOCK:
        known = {
            point: verdict
            for point, (when, verdict) in _VERDICTS.items()
            if not fresh and now - when < REMEMBER_SECONDS
        }
    asked = {point for point in wanted.values() if point is not None and point not in known}
    known.update(_connect_all(asked))
    return {
        url: known.get(point, "no address") if point is not None else "no address"
        for url, point in wanted.items()
    }


def endpoint(url: str) -> Endpoint | None:
    """Where a connection to ``url`` goes: its host and port, or the proxy the environment
    names for it (``HTTPS_PROXY``…, unless ``NO_PROXY`` covers the host)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if parts.hostname and proxy and not urllib.request.proxy_bypass(parts.hostname):  # NO_PROXY
        parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    host = parts.hostname
    try:
        port = parts.port
    except ValueError:  # "proxy:bad": no address to ask
        return None
    return (host, port or _PORTS.get(parts.scheme, 80)) if host else None


def forget() -> None:
    """Ask again next time (tests; a network that came back)."""
    with _LOCK:
        _VERDICTS.clear()


def _connect_all(points: set[Endpoint]) -> dict[Endpoint, str | None]:
    """Connect to every endpoint at once; an endpoint silent at the deadline timed out."""
    found: dict[Endpoint, str | None] = {}
    threads = []
    for point in points:
        thread = threading.Thread(
            target=_record, args=(point, found), name="ponder-reach", daemon=True
        )
        thread.start()
        threads.append(thread)
    deadline = time.monotonic() + PROBE_SECONDS
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    with _LOCK:
        now = time.monotonic()
        for point in points:
            found.setdefault(point, f"it did not answer within {PROBE_SECONDS:g} s")
            _VERDICTS[point] = (now, found[point])
        return {point: found[point] for point in points}


def _record(point: Endpoint, found: dict[Endpoint, str | None]) -> None:
    reason = connect(*point)
    with _LOCK:
        found.setdefault(point, reason)


def connect(host: str, port: int) -> str | None:
    """None when ``host`` accepts a TCP connection on ``port``, else why not (the boundary
    the tests replace to stand for the web)."""
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            return None
    except socket.gaierror:
        return "its name does not resolve"
    except ConnectionRefusedError:
        return "it refused the connection"
    except TimeoutError:
        return f"it did not answer within {PROBE_SECONDS:g} s"
    except OSError as exc:
        return str(exc.strerror or exc).lower()
