"""What a caller of a shared server is shown: the run, not the operator's internals.

A caller (of ``ponder mcp``, of the served graph, a user of ``ponder ui`` who is not its
operator) gets its report, sources and warnings, but warnings and errors are written for
the operator: "SearXNG at http://10.0.0.5:8888 failed", "Cannot reach Ollama at
http://gpu-box:11434", "Permission denied: '/var/cache/ponder/indexes/…'". Shown to a
caller, each of the operator's endpoints is named by its setting (``[searxng_url]``, its
Ollama hosts ``[ollama host 1]``…), any other address on a private network is
``[a server address]``, and a file path outside the document folders the caller may search
is ``[a file on the server]``. Statistics count each Ollama host's calls under the same
names, and a run's settings are the caller's own.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ponder.core.redact import redact
from ponder.core.result import Report
from ponder.settings.callers import caller_fields, document_roots
from ponder.settings.configuration import BACKENDS, Configuration

_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+")
# An absolute POSIX path in prose: not a URL's path (after a host or ://), nor "and/or".
_PATH = re.compile(r"(?<![\w.~:/\\-])/(?:[\w.~+@%=-]+/)*[\w.~+@%=-]+/?")
# A path in quotes, spaces and all, as errors quote them: "Permission denied: '/a b/c'".
_QUOTED_PATH = re.compile(r"(['\"])([/~][^'\"\n]{0,500})\1")
# A home-relative path: ~/notes, ~alice/notes.
_HOME_PATH = re.compile(r"(?<![\w/])~[\w.-]*/[^\s'\"<>]*")
# An address without a scheme: 10.0.0.5, 10.0.0.5:8888, ('10.0.0.5', 8888), fd00::5,
# gpu-box:11434.
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4}(?![\w:])")
_HOST_PORT = re.compile(r"(?<![\w./@-])[a-zA-Z][\w-]*(?:\.[\w-]+)*:\d{2,5}(?!\d)")
_ROOT_END = r"(?![\w~+@%=-]|\.\w)"
_ROOT_MARK = "\x00root{}x"  # ends in a letter: what follows a root is no path of its own
ADDRESS = "[a server address]"
FILE = "[a file on the server]"
_LOCAL_NAMES = (".localhost", ".local", ".internal", ".lan", ".home.arpa")


class CallerView:
    """The operator's configuration, seen from a caller's side."""

    def __init__(self, operator: Configuration, own: Sequence[Path] = ()) -> None:
        """``own``: folders of the caller's own (their uploads), named as they are."""
        self.hosts = {
            _origin(h): f"ollama host {n}" for n, h in enumerate(operator.ollama_hosts, 1)
        }
        endpoints = [
            ("openai_base_url", operator.openai_base_url),
            *((name, getattr(operator, name)) for name in backend_endpoints()),
            *((f"mcp server {s.name}", s.url) for s in operator.mcp_servers if s.url),
        ]
        self.endpoints = [(_prefix(url), f"[{name}]") for name, url in endpoints if url]
        folders = [*document_roots(operator), *own]
        roots = sorted((str(r) for r in folders), key=len, reverse=True)
        # A root, not the start of a longer name (/srv/docs, not /srv/docs.bak or /srv/docsx).
        self.roots = [(root, re.compile(re.escape(root) + _ROOT_END)) for root in roots]

    def text(self, text: str) -> str:
        """``text`` with the operator's addresses and files named, not given."""
        text = _URL.sub(self._url_in_text, redact(text))
        kept = {}
        for number, (root, pattern) in enumerate(self.roots):  # the caller's folders stay
            kept[_ROOT_MARK.format(number)] = root
            text = pattern.sub(_ROOT_MARK.format(number), text)
        text = _QUOTED_PATH.sub(lambda m: f"{m.group(1)}{FILE}{m.group(1)}", text)
        text = _HOME_PATH.sub(FILE, text)
        text = _PATH.sub(FILE, text)
        for mark, root in kept.items():
            text = text.replace(mark, root)
        text = _IPV4.sub(_address, text)
        text = _IPV6.sub(_address, text)
        return _HOST_PORT.sub(
            lambda m: ADDRESS if _private(f"http://{m.group()}") else m.group(), text
        )

    def _url_in_text(self, found: re.Match[str]) -> str:
        url = found.group()
        kept = len(url.rstrip(".,:;!?)]"))  # the sentence's punctuation, not the URL's
        return self._url(url[:kept]) + url[kept:]

    def _url(self, url: str) -> str:
        if url.lower().startswith("file:"):
            return FILE
        for pattern, name in self.endpoints:
            if pattern.match(url):
                return name
        if (label := self.hosts.get(_origin(url))) is not None:
            return f"[{label}]"
        return ADDRESS if _private(url) else url

    def stats(self, stats: Mapping[str, Any]) -> dict[str, Any]:
        """A run's statistics: each Ollama host's calls under its name, warnings shown."""
        shown = dict(stats)
        calls: dict[str, int] = {}
        for host, count in (stats.get("host_calls") or {}).items():
            label = self.hosts.get(_origin(str(host)), "ollama host")
            calls[label] = calls.get(label, 0) + int(count)
        shown["host_calls"] = calls
        shown["warnings"] = [self.text(str(w)) for w in stats.get("warnings") or []]
        return shown

    def report(self, report: Report) -> Report:
        """The report as a caller gets it: its warnings shown, in its statistics and in the
        text (a report that found nothing lists them); sources and prose untouched."""
        markdown = report.markdown
        for warning in report.stats.warnings:
            markdown = markdown.replace(warning, self.text(warning))
        stats = type(report.stats).model_validate(self.stats(report.stats.model_dump()))
        return report.model_copy(update={"markdown": markdown, "stats": stats})

    def settings(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Of a run's stored settings, those a caller may set (the rest are the operator's)."""
        allowed = set(caller_fields())
        return {key: value for key, value in config.items() if key in allowed}

    def event(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """A progress event of the UI's log: warnings and a run's end, shown."""
        shown = dict(event)
        if isinstance(shown.get("message"), str):
            shown["message"] = self.text(shown["message"])
        if isinstance(shown.get("stats"), Mapping):
            shown["stats"] = self.stats(shown["stats"])
        data = shown.get("data")
        if isinstance(data, Mapping) and isinstance(data.get("message"), str):
            shown["data"] = {**data, "message": self.text(data["message"])}
        return shown


def _address(found: re.Match[str]) -> str:
    """A bare IP address on the operator's own network, not given; a public one stays."""
    try:
        return ADDRESS if not ipaddress.ip_address(found.group()).is_global else found.group()
    except ValueError:
        return found.group()  # "12:30:45" and other colons are no address


def backend_endpoints() -> list[str]:
    """The settings that hold the search backends' addresses (each backend names its own)."""
    return [name for group in BACKENDS for name in getattr(group, "ENDPOINTS", ())]


def _origin(url: str) -> str:
    """scheme://host:port of a URL, without credentials, lower-cased."""
    try:
        parts = urlsplit(url.strip())
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return url
    return f"{parts.scheme}://{parts.hostname or ''}{port}".lower()


def _prefix(url: str) -> re.Pattern[str]:
    """A pattern for URLs under a configured endpoint ({lang} in wikipedia_url: any)."""
    base = url.rstrip("/")
    pattern = re.escape(base).replace(re.escape("{lang}"), "[a-z0-9-]+")
    return re.compile(rf"(?i){pattern}(?=$|[/?#:])")


def _private(url: str) -> bool:
    """A URL on the operator's own network: an IP that is not public, or a local name."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return False
    if host == "localhost" or host.endswith(_LOCAL_NAMES) or ("." not in host and ":" not in host):
        return bool(host)  # a name without a dot resolves only on the operator's network
    try:
        return not ipaddress.ip_address(host.split("%", 1)[0]).is_global
    except ValueError:
        return False
