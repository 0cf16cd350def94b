"""A search backend is one module: once it registers, every surface offers it — the CLI,
the settings, doctor, the MCP tool, the factory, the docs page — and the contract test runs
against it, with no other file edited. The backend below is such a module, written here.
"""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.contract import honours

from ponder.interfaces import cli
from ponder.services.search.base import SearchBackend, SearchBackendError, SearchResult
from ponder.services.search.registry import (
    Building,
    Patch,
    SearchPlugin,
    Verdict,
    plugins,
    registered,
)
from ponder.settings.configuration import Configuration
from ponder.settings.search_backends import SearchBackendInfo, names

ROOT = Path(__file__).resolve().parents[2]

# -- the module of a new backend: client, make, check, contract fixture, registration ------

ALMANAC_URL = "https://almanac.invalid/api"


class AlmanacSearch:
    """A tide almanac's JSON API: {"entries": [{"title", "url", "text"}]}."""

    name = "almanac"

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = ALMANAC_URL
        self._transport = transport

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        try:
            async with httpx.AsyncClient(transport=self._transport) as client:
                response = await client.get(self.base_url, params={"q": query})
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise SearchBackendError(f"the almanac failed ({type(exc).__name__})") from None
        entries = response.json()["entries"][:max_results]
        return [
            SearchResult(title=e["title"], url=e["url"], snippet=e["text"], backend=self.name)
            for e in entries
        ]


def make(built: Building) -> SearchBackend:
    return built.cached(AlmanacSearch())


def check(config: Configuration) -> Verdict:
    return Verdict(True, "The almanac is at hand")


def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
    import asyncio

    async def answer(request: httpx.Request) -> httpx.Response:
        if mode == "failing":
            return httpx.Response(503)
        if mode == "slow":
            await asyncio.sleep(5)
        count = 0 if mode == "empty" else 4
        entries = [
            {"title": f"Tide table {i}", "url": f"https://almanac.example/{i}", "text": "High"}
            for i in range(count)
        ]
        return httpx.Response(200, json={"entries": entries})

    return AlmanacSearch(transport=httpx.MockTransport(answer))


ALMANAC = SearchPlugin(
    SearchBackendInfo(name="almanac", note="tide tables", summary="a tide almanac's API"),
    make=make,
    check=check,
    contract=contract,
)

# -- every surface picks it up -------------------------------------------------------------


@pytest.fixture
def almanac() -> Iterator[SearchPlugin]:
    with registered(ALMANAC) as plugin:
        yield plugin
    assert "almanac" not in names()


def test_the_command_line_offers_it(almanac: SearchPlugin) -> None:
    parser = cli.build_parser()
    args = parser.parse_args(cli.with_default_command(["q", "--search", "wikipedia,almanac"]))
    assert args.search == "wikipedia,almanac"
    shown = io.StringIO()
    with redirect_stdout(shown), pytest.raises(SystemExit):
        parser.parse_args(["research", "--help"])
    assert "wikipedia, arxiv, almanac;" in " ".join(shown.getvalue().split())


def test_the_settings_take_it(almanac: SearchPlugin) -> None:
    assert Configuration.create(search="almanac").searches == ["almanac"]
    assert Configuration.create(search=["arxiv", "Almanac"]).search == "arxiv,almanac"
    operator = Configuration.create(caller_searches=["almanac"])
    assert operator.caller_searches == ["almanac"]
    schema = Configuration.model_json_schema()["properties"]["caller_searches"]
    assert "almanac" in schema["anyOf"][0]["items"]["enum"]


def test_doctor_asks_it(almanac: SearchPlugin) -> None:
    from ponder.interfaces.doctor import search_checks

    checks = search_checks(Configuration(search="almanac"))
    assert [(c.outcome, c.message) for c in checks] == [("ok", "The almanac is at hand")]


async def test_the_mcp_tool_offers_it(almanac: SearchPlugin) -> None:
    from ponder.interfaces.mcp.server import build_server

    tools = {tool.name: tool for tool in await build_server().list_tools()}
    offered = tools["research"].input_schema["properties"]["search"]["anyOf"][0]["enum"]
    assert offered == [*names()] and offered[-1] == "almanac"


def test_the_factory_makes_it(almanac: SearchPlugin, tmp_path: Path) -> None:
    from support.edges import here

    from ponder.services.search import make_search

    docs = tmp_path / "docs"
    docs.mkdir()
    config = Configuration(search="almanac", docs=[str(docs)])
    search: Any = make_search(config, print, environment=here())
    assert [backend.name for backend in search.backends] == ["almanac", "local"]


async def test_the_contract_holds_for_it(almanac: SearchPlugin, tmp_path: Path) -> None:
    assert almanac.contract is not None
    await honours(almanac.contract, tmp_path)


def test_the_docs_page_lists_it(almanac: SearchPlugin) -> None:
    assert "| `almanac` | a tide almanac's API |" in _docs_script().render()


def test_it_is_gone_once_unregistered() -> None:
    assert "almanac" not in names()
    with pytest.raises(Exception, match="unknown search backend almanac"):
        Configuration.create(search="almanac")


# -- the built-in backends -----------------------------------------------------------------


def test_the_docs_page_is_the_backends_own() -> None:
    assert _docs_script().main(["--check"]) == 0, "run `python scripts/search_backends.py`"


def test_each_backend_names_real_settings_and_backends() -> None:
    every = {p.name for p in plugins()}
    for plugin in plugins():
        assert set(plugin.info.settings) <= set(Configuration.model_fields), plugin.name
        assert set(plugin.info.fallbacks) <= every - {plugin.name}, plugin.name


def _docs_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "search_backends", ROOT / "scripts" / "search_backends.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
