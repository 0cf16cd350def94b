from __future__ import annotations

import pytest

from ponder.core.errors import ConfigurationError
from ponder.settings.configuration import Configuration, environment_values
from ponder.settings.environment import Machine, machine, secret
from ponder.settings.ollama_host import normalise_host
from ponder.settings.run_settings import run_configuration


def test_defaults_have_descriptions_for_studio() -> None:
    for name, field in Configuration.model_fields.items():
        assert field.description, f"{name} has no description"
    schema = Configuration.model_json_schema()
    assert schema["properties"]["max_loops"]["default"] == 3


def test_names_later_issues_rely_on_exist() -> None:
    wanted = {
        "model",
        "ollama_base_url",
        "num_ctx",
        "temperature",
        "max_loops",
        "queries_per_round",
        "search",
        "docs",
        "searxng_url",
        "fetch_full_page",
        "mode",
        "allow_clarification",
        "max_concurrent_researchers",
        "max_supervisor_rounds",
    }
    assert wanted <= set(Configuration.model_fields)


def test_unknown_key_lists_valid_ones() -> None:
    with pytest.raises(ConfigurationError) as err:
        Configuration.create(max_loop=2)
    assert "max_loop" in str(err.value)
    assert "max_loops" in str(err.value) and "queries_per_round" in str(err.value)


def test_bad_value_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="max_loops"):
        Configuration.create(max_loops=0)
    with pytest.raises(ConfigurationError, match="search"):
        Configuration.create(search="bing")


def test_environment_beats_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_MAX_LOOPS", "5")
    assert Configuration.create().max_loops == 5
    assert run_configuration({}).max_loops == 5


def test_per_run_beats_environment_even_when_equal_to_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PONDER_MAX_LOOPS", "5")
    monkeypatch.setenv("PONDER_MODEL", "env-model")
    config = {"configurable": {"max_loops": 3, "thread_id": "t1", "checkpoint_ns": ""}}
    resolved = run_configuration(config)
    assert resolved.max_loops == 3  # 3 is the default, and still wins over the environment
    assert resolved.model == "env-model"
    assert Configuration.create(max_loops=3).max_loops == 3


def test_runtime_context_is_a_per_run_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_QUERIES_PER_ROUND", "2")
    resolved = run_configuration({}, context={"queries_per_round": 4})
    assert resolved.queries_per_round == 4


def test_ollama_host_is_read_like_ollama_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    assert Configuration.create().ollama_base_url == "http://gpu-box:11500"
    assert Configuration.create(ollama_base_url="http://x:1").ollama_base_url == "http://x:1"
    assert normalise_host("0.0.0.0") == "http://0.0.0.0:11434"
    assert normalise_host(":8080") == "http://127.0.0.1:8080"
    assert normalise_host("https://ollama.example.com") == "https://ollama.example.com:443"
    assert normalise_host("http://[::1]:9000/") == "http://[::1]:9000"


def test_docs_from_environment_as_path_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_DOCS", "/a:/b")
    assert environment_values()["docs"] == ["/a", "/b"]
    assert Configuration.create().docs == ["/a", "/b"]


def test_the_machine_settings_come_from_the_environment_and_blank_is_unset() -> None:
    env = {
        "PONDER_DATA_DIR": "/srv/ponder",
        "PONDER_DATABASE_URL": "  ",
        "PONDER_HOST_ID": " box-7 ",
        "PONDER_MCP_ALLOWED_HOSTS": "research:8765, research:* ,",
    }
    found = machine(env)
    assert found.data_dir == "/srv/ponder" and found.cache_dir is None
    assert found.database_url is None and found.host_id == "box-7"
    assert found.mcp_allowed_hosts == ["research:8765", "research:*"]
    assert "password" not in repr(machine({"PONDER_DATABASE_URL": "postgresql://u:password@h/d"}))


def test_keys_are_read_stripped_and_blank_ones_are_unset() -> None:
    assert secret("TAVILY_API_KEY", {"TAVILY_API_KEY": " tvly-1 \n"}) == "tvly-1"
    assert secret("TAVILY_API_KEY", {"TAVILY_API_KEY": " "}) is None
    assert secret("PONDER_MCP_TOKEN", {}) is None


def test_machine_settings_are_not_run_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored with a run, they would follow it to a machine whose folders differ."""
    monkeypatch.setenv("PONDER_HOST_ID", "box-7")
    assert not set(Machine.model_fields) & set(Configuration.model_fields)
    assert "box-7" not in Configuration.create().model_dump_json()


def environment_writes(source: str) -> list[int]:
    """Lines that change os.environ (assign, delete, setdefault, update…) or call putenv."""
    import ast

    writes = ("setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__")
    lines = []
    for node in ast.walk(ast.parse(source)):
        target = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("putenv", "unsetenv"):
                lines.append(node.lineno)
            elif node.func.attr in writes:
                target = node.func.value
        if target is not None and ast.unparse(target).endswith("environ"):
            lines.append(node.lineno)
    return lines


def test_nothing_in_ponder_changes_the_environment_but_openmps_wait_policy() -> None:
    """Configuration changes no global state: a write to os.environ would reach everything
    else in the process, and every program ponder starts."""
    from pathlib import Path

    import ponder

    sample = (
        'import os\nos.environ["A"] = "1"\nos.environ.setdefault("B", "2")\ndel os.environ["A"]\n'
    )
    assert environment_writes(sample) == [2, 3, 4]
    assert environment_writes("env = {}\nenv['A'] = 1\nos.environ.get('A')\n") == []
    found = [
        path.relative_to(Path(ponder.__file__).parent).as_posix()
        for path in sorted(Path(ponder.__file__).parent.rglob("*.py"))
        for _ in environment_writes(path.read_text())
    ]
    assert found == ["settings/environment.py"]  # openmp_waits_passively, which says why
