"""Ollama's own conventions for where it listens: ``OLLAMA_HOST`` read as its clients read it."""

from __future__ import annotations

from ponder.settings.environment import ollama_host

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"


def one_host_for_the_ollama_client() -> None:
    """Call before importing the ollama package, which parses OLLAMA_HOST as it is imported
    and cannot read a list of hosts: a list is a ConfigurationError that names the setting
    for several hosts (the variable is left as the user set it)."""
    ollama_host()


def normalise_hosts(value: str | list[object] | tuple[object, ...]) -> str:
    """Several hosts ("a,b" or a list) as ``"http://a:11434,http://b:11434"``, each once."""
    parts = value.split(",") if isinstance(value, str) else value
    hosts = [normalise_host(str(part)) for part in parts if str(part).strip()]
    return ",".join(dict.fromkeys(hosts)) or DEFAULT_OLLAMA_URL


def normalise_host(value: str) -> str:
    """Read a host the way Ollama's clients read OLLAMA_HOST.

    ``example.com`` → ``http://example.com:11434``; ``:8080`` → ``http://127.0.0.1:8080``;
    ``https://h`` → ``https://h:443``. A trailing slash is dropped.
    """
    text = value.strip().rstrip("/")
    if not text:
        return DEFAULT_OLLAMA_URL
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "http", text
    default_port = {"http": 11434, "https": 443}.get(scheme, 11434)
    hostport, slash, path = rest.partition("/")
    if hostport.startswith("["):  # IPv6 literal
        host, _, port = hostport[1:].partition("]")
        port = port.lstrip(":")
        host = f"[{host}]"
    else:
        host, _, port = hostport.partition(":")
    host = host or "127.0.0.1"
    port = port or str(default_port)
    return f"{scheme}://{host}:{port}" + (f"/{path}" if slash and path else "")
