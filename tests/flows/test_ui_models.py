"""The ask page's model picker: the health it shows is the health of a run with the model
it picked, so a configured model the server lacks is said once, beside the one used
instead, not as an error that stays red after the picker moved on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ponder.interfaces.ui.app import create_app
from ponder.testing import Rig, ScriptedBackend


@pytest.fixture
def two_models(scripted: ScriptedBackend) -> Iterator[Rig]:
    with Rig(scripted, models=("scripted", "scripted-large")) as running:
        yield running


@pytest.fixture
def page(two_models: Rig, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("PONDER_MODEL", "llama3.1:8b")  # not on this server
    monkeypatch.setenv("PONDER_OLLAMA_BASE_URL", two_models.url)
    monkeypatch.setenv("PONDER_SEARCH", "local")
    monkeypatch.setenv("PONDER_DOCS", str(corpus))
    with TestClient(create_app("127.0.0.1", 8765), base_url="http://127.0.0.1:8765") as client:
        yield client


def test_a_missing_configured_model_is_said_beside_the_one_picked_and_the_health_is_its(
    page: TestClient,
) -> None:
    first = page.get("/api/models", params={"model": "llama3.1:8b"}).json()
    assert first["chosen"] == "scripted"
    assert first["ok"] and first["error"] is None
    assert "llama3.1:8b is not on the model server" in first["note"]
    picked = page.get("/api/models", params={"model": "scripted-large"}).json()
    assert picked["chosen"] == "scripted-large" and picked["ok"]


def test_a_model_the_server_lacks_is_never_picked_because_it_was_asked_for(
    page: TestClient,
) -> None:
    asked = page.get("/api/models", params={"model": "../../etc"}).json()
    assert asked["chosen"] == "scripted"


def test_a_web_search_that_cannot_be_reached_is_named_with_why(
    page: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support import closed_address

    with closed_address() as closed:
        monkeypatch.setenv("PONDER_SEARXNG_URL", closed)
        unreachable = page.get("/api/searches").json()
    assert closed in unreachable["searxng"], unreachable
    assert "local" not in unreachable and "auto" not in unreachable
