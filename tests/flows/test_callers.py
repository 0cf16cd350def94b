"""Who may set what: every field says caller or operator; a caller's values are held to the
operator's limits (backends, document folders, models); the graphs a server serves refuse
the rest by themselves; a client of a server never sends an operator setting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from ponder import aresearch
from ponder.core.errors import CallerRefusedError, ConfigurationError
from ponder.interfaces.cli import main
from ponder.settings.callers import caller_fields, operator_fields, served_configuration, vet
from ponder.settings.configuration import BACKENDS, Configuration
from ponder.settings.run_settings import SERVED_KEY, run_configuration
from ponder.settings.settable import Caller, settable_by
from ponder.testing import Rig, ScriptedBackend

ROOT = Path(__file__).resolve().parents[2]

# A value for every operator field that a hostile caller might send. A new operator field
# must add one here (the first test says so), and so is tested like the others; a search
# backend's own fields (its folder's settings.py) get one made from their type, below.
CORE_HOSTILE: dict[str, Any] = {
    "provider": "openai",
    "openai_base_url": "http://thief.example/v1",
    "ollama_base_url": "http://thief.example:11434",
    "ollama_parallel": 64,
    "num_ctx": 1_048_576,
    "keep_alive": "-1",
    "request_timeout": 86_400,
    "max_retries": 5,
    "embed_model": "huge-embedder",
    "mcp_servers": [{"name": "x", "command": ["/bin/sh", "-c", "true"], "tools": ["t"]}],
    "fallback": True,
    "allow_private_urls": True,
    "cache_ttl_hours": 1e9,
    "docs_roots": ["/"],
    "library": ["/etc/refs.bib"],
    "docs_hidden_and_symlinks": True,
    "caller_searches": ["tavily"],
    "caller_models": ["*"],
    # Ceilings stand at their hard caps unless the operator lowers them: any other value from
    # a caller is refused like every operator field (raising them further is invalid).
    "caller_max_loops": 1,
    "caller_queries_per_round": 1,
    "caller_results_per_query": 1,
    "caller_max_concurrent_researchers": 1,
    "caller_max_supervisor_rounds": 1,
    "caller_runs": 1000,
    "caller_time_budget": "1h",
    "caller_token_budget": 10_000_000,
    "caller_watches": 1000,
    "caller_watch_every": 60,
    "caller_num_predict": 16,
    "caller_summary_tokens": 100,
    "caller_evidence_tokens": 200,
    "caller_min_findings_to_stop": 1,
    "caller_min_sources_to_stop": 1,
    "cache": False,  # each of a caller's runs would ask the web afresh
}


def hostile(name: str) -> Any:
    """A hostile value for a backend's operator field, by its type: another address, a
    file the operator never offered, the switch turned."""
    field = Configuration.model_fields[name]
    default = field.get_default(call_default_factory=True)
    if isinstance(default, bool):
        return not default
    if isinstance(default, list):
        return ["/etc/shadow"]
    if isinstance(default, int | float):
        return default + 1000
    return "http://thief.example/api" if name.endswith("_url") else "/etc/shadow"


HOSTILE: dict[str, Any] = {
    **CORE_HOSTILE,
    **{
        name: hostile(name)
        for group in BACKENDS
        for name in group.model_fields
        if settable_by(Configuration.model_fields[name]) == "operator"
    },
}


def test_every_field_says_who_may_set_it() -> None:
    undeclared = [n for n, f in Configuration.model_fields.items() if settable_by(f) is None]
    assert undeclared == [], f"declare these Caller[...] or Operator[...]: {undeclared}"
    assert set(caller_fields()) | set(operator_fields()) == set(Configuration.model_fields)
    assert set(operator_fields()) == set(HOSTILE), "add a hostile value for each operator field"

    class Later(BaseModel):  # what a new, undeclared field looks like to the check
        marked: Caller[int] = Field(1, description="declared")
        unmarked: int = Field(1, description="not declared")

    assert settable_by(Later.model_fields["marked"]) == "caller"
    assert settable_by(Later.model_fields["unmarked"]) is None


def test_the_schema_studio_reads_says_who_sets_each_field() -> None:
    properties = Configuration.model_json_schema()["properties"]
    assert properties["mode"]["settable_by"] == "caller"
    assert properties["mcp_servers"]["settable_by"] == "operator"


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_an_operator_field_from_a_caller_is_refused_by_name(name: str) -> None:
    with pytest.raises(CallerRefusedError) as refused:
        vet({"max_loops": 2, name: HOSTILE[name]})
    message = str(refused.value)
    assert f"{name} is set by the server's operator" in message
    assert "max_loops" in message  # and says what a caller may set


def test_a_caller_repeating_the_operators_own_value_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A form that sends every field back (as a UI may) is not an attack."""
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11434")
    echoed = {"ollama_base_url": "http://gpu-box:11434", "num_ctx": 8192, "mcp_servers": []}
    assert vet({**echoed, "max_loops": 2}) == {"max_loops": 2}


def test_documents_must_resolve_inside_the_operators_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "shared"
    (root / "papers").mkdir(parents=True)
    secret = tmp_path / "home" / "secret"
    secret.mkdir(parents=True)
    (root / "escape").symlink_to(secret)  # a link in the operator's folder leading out
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PONDER_DOCS", str(root))
    inside = vet({"docs": [str(root / "papers"), str(root / "x" / ".." / "papers")]})
    assert inside["docs"] == [str(root / "papers")] * 2  # resolved, so used as checked
    for outside in [str(root / ".." / "home"), str(root / "escape"), "~/secret", "/etc"]:
        with pytest.raises(CallerRefusedError, match="outside this server's document folders"):
            vet({"docs": [str(root / "papers"), outside]})
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(tmp_path / "home"))  # roots win over docs
    assert vet({"docs": ["~/secret"]})["docs"] == [str(secret)]
    monkeypatch.delenv("PONDER_DOCS")
    monkeypatch.delenv("PONDER_DOCS_ROOTS")
    with pytest.raises(CallerRefusedError, match="offers no documents to callers"):
        vet({"docs": [str(root)]})


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("papers\x00/../../etc", "NUL byte"),
        # One answer whether the user exists or not: a caller cannot list the server's users.
        ("~nosuchuser/papers", "~name names a user's home folder"),
        ("~root/papers", "~name names a user's home folder"),
        ("", "empty path"),
        ("/srv/" + "x" * 5000, "longer than any path"),
    ],
)
def test_a_path_that_cannot_name_a_file_is_refused_with_why(
    raw: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pathlib raises on these (ValueError, RuntimeError, OSError): a served caller's request
    would end as a server error instead of a refusal."""
    monkeypatch.setenv("PONDER_DOCS", str(tmp_path))
    with pytest.raises(CallerRefusedError, match=says):
        vet({"docs": [raw]})
    with pytest.raises(CallerRefusedError, match=says):
        served_configuration({"docs": [str(tmp_path), raw]})


def test_searches_are_among_the_backends_the_operator_enables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_SEARCH", "searxng")
    assert vet({"search": "searxng"}) == {"search": "searxng"}
    for public in ("duckduckgo", "tavily", "hybrid", "local"):  # no roots: no local either
        with pytest.raises(CallerRefusedError, match=f"search='{public}' is not enabled"):
            vet({"search": public})
    monkeypatch.setenv("PONDER_DOCS", str(tmp_path))
    assert vet({"search": "local"}) == {"search": "local"}
    monkeypatch.setenv("PONDER_CALLER_SEARCHES", "local,tavily")
    assert vet({"search": "tavily"}) == {"search": "tavily"}
    with pytest.raises(CallerRefusedError, match="a caller may choose local, tavily"):
        vet({"search": "searxng"})


def test_a_caller_combines_only_backends_the_operator_enables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PONDER_SEARCH", "wikipedia,arxiv")
    for chosen in ("arxiv", "wikipedia,arxiv", ["arxiv", "wikipedia"], "Wikipedia, arXiv"):
        assert vet({"search": chosen}) == {"search": chosen}
    for chosen in ("duckduckgo", "wikipedia,duckduckgo", ["arxiv", "hybrid"]):
        with pytest.raises(CallerRefusedError, match="a caller may choose wikipedia, arxiv"):
            vet({"search": chosen})
    monkeypatch.setenv("PONDER_CALLER_SEARCHES", "local,arxiv")
    with pytest.raises(CallerRefusedError, match="search='wikipedia,arxiv' is not enabled"):
        vet({"search": "wikipedia,arxiv"})


def test_a_caller_chooses_the_wikipedia_edition_never_its_host() -> None:
    assert served_configuration({"wikipedia_lang": "de"}).wikipedia_lang == "de"
    for hostile in ("thief.example/", "en.wikipedia.org@thief", "de:80", "EN"):
        with pytest.raises(ConfigurationError, match="wikipedia_lang"):
            served_configuration({"wikipedia_lang": hostile})


def test_models_are_pinned_unless_the_operator_offers_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PONDER_MODEL", "gemma3:4b")
    assert vet({"model": "gemma3:4b", "report_model": "gemma3:4b"})
    with pytest.raises(CallerRefusedError, match="model='llama3:70b' is not offered"):
        vet({"model": "llama3:70b"})
    monkeypatch.setenv("PONDER_CALLER_MODELS", "qwen3:8b,gemma3:12b")  # names hold ':'
    assert vet({"report_model": "gemma3:12b"}) == {"report_model": "gemma3:12b"}
    with pytest.raises(CallerRefusedError, match="report_model='llama3:70b'"):
        vet({"report_model": "llama3:70b"})
    monkeypatch.setenv("PONDER_CALLER_MODELS", "*")
    assert vet({"model": "llama3:70b"}) == {"model": "llama3:70b"}


def test_full_pages_are_the_operators_choice_where_private_addresses_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert vet({"fetch_full_page": True}) == {"fetch_full_page": True}
    monkeypatch.setenv("PONDER_ALLOW_PRIVATE_URLS", "true")
    with pytest.raises(CallerRefusedError, match="fetch_full_page is the operator's"):
        vet({"fetch_full_page": True})


def test_a_served_configuration_is_the_operators_with_the_callers_choices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PONDER_DOCS_ROOTS", str(tmp_path))
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11434")
    served = served_configuration({"search": "local", "max_loops": 5})
    assert served.max_loops == 5 and served.ollama_base_url == "http://gpu-box:11434"
    assert served.docs == [str(tmp_path.resolve())]  # no docs named: the roots themselves
    with pytest.raises(CallerRefusedError):
        run_configuration({"configurable": {SERVED_KEY: True, "fallback": 1}})
    # Not served (the CLI, the Python API): the caller is the operator and sets everything.
    assert run_configuration({"configurable": {"fallback": True}}).fallback


def never_sufficient(_request: Any) -> dict[str, Any]:
    return {"is_sufficient": False, "knowledge_gap": "more", "follow_up_queries": ["neap tides"],
            "scope": "focused", "subtopics": []}  # fmt: skip


def touch_server(flag: Path) -> dict[str, Any]:
    return {"name": "pwn", "command": ["/bin/sh", "-c", f"touch {flag}"], "tools": ["search"]}


async def test_the_served_graph_refuses_before_anything_runs_and_serves_a_caller(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """In-process, the graph langgraph.json serves: configurable, context, a caller who sets
    the served mark to False — all refused before any model call; per-question settings
    hold."""
    from ponder.graphs.studio import graph

    monkeypatch.setenv("OLLAMA_HOST", rig.url)
    monkeypatch.setenv("PONDER_MODEL", "scripted")
    monkeypatch.setenv("PONDER_DOCS", str(corpus))
    flag = tmp_path / "pwned"
    hostile = {"search": "local", "mcp_servers": [touch_server(flag)]}
    topic = {"topic": "How do tides work?"}
    for config, context in [
        ({"configurable": hostile}, None),
        ({}, hostile),
        ({"configurable": {**hostile, SERVED_KEY: False}}, None),
    ]:
        with pytest.raises(CallerRefusedError, match="mcp_servers is set by the server's"):
            await graph.ainvoke(topic, config, context=context)
    assert not flag.exists() and rig.chat_log() == []
    scripted.overrides["Reflection"] = never_sufficient  # so max_loops decides the rounds
    settings = {"search": "local", "mode": "loop", "max_loops": 2, "queries_per_round": 1}
    events = [
        chunk
        async for chunk in graph.astream(
            topic, {"configurable": settings}, stream_mode="custom", subgraphs=False
        )
    ]
    assert [e["round"] for e in events if e.get("event") == "round_start"] == [1, 2]
    assert any(e.get("event") == "report" for e in events)
    assert {e.model for e in rig.chat_log()} == {"scripted"}  # the operator's model


async def test_the_python_api_is_the_operator_and_keeps_every_field(rig: Rig, corpus: Path) -> None:
    report = await aresearch(
        "How do tides work?", model="scripted", ollama_base_url=rig.url, search="local",
        docs=[str(corpus)], mode="loop", max_loops=1, num_ctx=4096, fallback=True,
    )  # fmt: skip
    assert report.markdown.startswith("# ")


async def test_a_client_of_a_server_sends_no_operator_setting() -> None:
    nowhere = "http://127.0.0.1:9"  # nothing listens: reaching it would be another error
    with pytest.raises(CallerRefusedError, match="tavily_url is set by the server's operator"):
        await aresearch("How do tides work?", server=nowhere, tavily_url="http://thief")


def test_the_cli_names_the_flag_it_refuses_for_a_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["How do tides work?", "--server", "http://127.0.0.1:9", "--searxng-url", "x"])
    err = capsys.readouterr().err
    assert code == 2 and "--searxng-url (searxng_url) is set by the server's operator" in err
    assert "Cannot reach" not in err  # refused before any connection


def test_the_deploy_guide_lists_exactly_what_a_caller_may_send() -> None:
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    table = guide.split("<!-- caller settings -->")[1]
    rows = re.findall(r"^\| `(\w+)` \| (caller|operator) \|", table, re.M)
    assert dict(rows) == {
        name: "caller" if name in caller_fields() else "operator"
        for name in Configuration.model_fields
    }
