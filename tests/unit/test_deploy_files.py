"""deploy/compose.yaml and deploy/Dockerfile say what `make test-engine` runs: no Docker here
to start them, so they are held to the tested setup instead — the engine's variables as
tests/support/aegra.py sets them, the doors pointed at the engine with the engine's tokens,
Aegra's version as the Makefile pins it, and only settings ponder documents."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def services() -> dict[str, Any]:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    return dict(compose["services"])


def test_the_engine_runs_as_the_tests_run_it() -> None:
    engine = services()["engine"]
    env = engine["environment"]
    tested = (ROOT / "tests" / "support" / "aegra.py").read_text(encoding="utf-8")
    for name in ("AEGRA_CONFIG", "DATABASE_URL", "REDIS_BROKER_ENABLED", "REDIS_URL",
                 "PONDER_SERVER_SELF_URL"):  # fmt: skip
        assert name in env and name in tested, name
    assert env["REDIS_BROKER_ENABLED"] == "true"
    assert "PONDER_SERVER_TOKENS" in env and "PONDER_CALLER_RUNS" in env
    assert engine["command"].startswith("aegra serve ")
    assert "--config /srv/ponder/langgraph.json" in engine["command"]


def test_every_door_is_a_client_of_the_engine_with_the_engine_s_tokens() -> None:
    found = services()
    port = re.search(r"--port (\d+)", found["engine"]["command"])
    assert port is not None
    for door, tokens in (("ui", "PONDER_UI_TOKENS"), ("mcp", "PONDER_MCP_TOKENS")):
        env = found[door]["environment"]
        assert env["PONDER_SERVER"] == f"http://engine:{port[1]}", door
        assert env[tokens] == "${PONDER_SERVER_TOKENS}", door
        assert env["PONDER_SERVER_TOKENS"] == found["engine"]["environment"]["PONDER_SERVER_TOKENS"]


def test_the_image_holds_the_engine_the_makefile_tests() -> None:
    pinned = re.search(r"^ENGINE_PACKAGES := (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert pinned is not None
    image = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    for package in pinned[1].split():
        if package.startswith("aegra"):
            assert f'"{package}"' in image, package


def test_every_ponder_setting_named_is_documented() -> None:
    documented = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\bPONDER_[A-Z_]+", (DEPLOY / "compose.yaml").read_text()))
    named |= set(re.findall(r"\bPONDER_[A-Z_]+", (DEPLOY / "Dockerfile").read_text()))
    assert named and not {name for name in named if f"`{name}`" not in documented}
