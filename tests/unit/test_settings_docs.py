"""Each setting is described once, where it is declared: docs/configuration.md and the
command line's flags are generated from the declarations (`make lint` fails when either is
stale; scripts/settings_docs.py writes them)."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from ponder.interfaces import cli
from ponder.interfaces.cli.flags import MACHINE_FLAGS, RUN_FLAGS
from ponder.settings.configuration import Configuration
from ponder.settings.keys import SECRETS, Secret
from ponder.settings.machine import Machine
from ponder.settings.reference import cli_flags

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_the_page_lists_every_setting_and_every_environment_variable() -> None:
    page = DOCS.read_text(encoding="utf-8")
    for name in (*Configuration.model_fields, *Machine.model_fields):
        assert f"| `{name}` |" in page or f"[`{name}`]" in page, name
        assert f"`PONDER_{name.upper()}`" in page, name
    assert set(SECRETS) == set(get_args(Secret))
    for variable in (*SECRETS, "OLLAMA_HOST", "PONDER_CACHE_DIR", "PONDER_MODEL_DIR"):
        assert f"| `{variable}` |" in page, variable


def test_the_generated_flags_are_the_declared_ones() -> None:
    assert cli_flags(Configuration, backends=False) == RUN_FLAGS
    assert cli_flags(Machine, backends=False) == MACHINE_FLAGS


def test_each_flag_sets_its_field_under_the_fields_name() -> None:
    """A flag declared on a field is offered by `ponder research` and lands in the run's
    settings under the field's name, however the flag is spelled."""
    parser = cli.build_parser()
    research = parser.parse_args(["research", "q"])
    for name in (*RUN_FLAGS, *MACHINE_FLAGS):
        assert hasattr(research, name), f"ponder research has no flag for {name}"
    given = parser.parse_args(
        ["research", "q", "--loops", "2", "--full-pages", "--no-cache", "--openai-url", "u"]
    )
    assert cli.run_options(given) == {
        "max_loops": 2, "fetch_full_page": True, "cache": False, "openai_base_url": "u",
    }  # fmt: skip
