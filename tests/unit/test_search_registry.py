"""The search backends as they registered: the docs page is theirs, and what each names
exists."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from ponder.services.search.registry import plugins
from ponder.settings.configuration import Configuration

ROOT = Path(__file__).resolve().parents[2]


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
