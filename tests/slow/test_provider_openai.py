"""provider=openai: the same prompts through the OpenAI chat API (LM Studio, llama-server,
vLLM, LocalAI), driven by langchain-openai against the rig's /v1/chat/completions — each
structured decision with its JSON schema in ``response_format``, the same guarantees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import over_corpus

from ponder import aresearch
from ponder.core.errors import ModelNotFoundError, ModelServerUnavailableError
from ponder.interfaces.cli import main
from ponder.testing import Fault, Rig, ScriptedBackend


def openai(rig: Rig, corpus: Path, **extra: object) -> dict[str, object]:
    config = over_corpus(rig, corpus, **{"mode": "loop", "max_loops": 2, **extra})
    config.pop("ollama_base_url")
    return {**config, "provider": "openai", "openai_base_url": f"{rig.url}/v1"}


async def test_a_run_through_the_openai_api_is_cited_and_counted(rig: Rig, corpus: Path) -> None:
    report = await aresearch("How do tides work?", **openai(rig, corpus))
    log = rig.chat_log()
    assert log and {e.path for e in log} == {"/v1/chat/completions"}
    schemas = {e.schema for e in log}
    assert {"QueryPlan", "SummaryUpdate"} <= schemas  # sent as response_format json_schema
    assert report.cited_sources() and "[1]" in report.markdown
    assert report.stats.llm_calls == len(log)
    assert report.stats.prompt_tokens == sum(e.prompt_tokens for e in log)
    assert report.stats.completion_tokens == sum(e.eval_tokens for e in log)
    assert report.stats.host_calls == {f"{rig.url}/v1": len(log)}


async def test_invalid_output_and_server_errors_get_retries_then_fallbacks(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["QueryPlan"] = Fault("invalid_json")
    scripted.push(Fault("http500"))
    report = await aresearch("How do tides work?", **openai(rig, corpus, max_loops=1))
    assert report.markdown.startswith("# ")
    assert report.stats.retries >= 1 and report.stats.fallbacks >= 1
    assert any("QueryPlan" in w for w in report.stats.warnings)


async def test_a_broken_stream_and_a_dropped_connection_cost_a_retry(
    rig: Rig, scripted: ScriptedBackend, corpus: Path
) -> None:
    scripted.overrides["text"] = Fault("stream_error")  # every report attempt breaks
    scripted.push(Fault("drop"))  # and the first call loses its connection
    report = await aresearch("How do tides work?", **openai(rig, corpus, max_loops=1))
    assert report.markdown.startswith("# ")  # the extractive report, after retries
    assert report.stats.retries >= 2 and report.stats.extractive_report


async def test_a_model_the_server_lacks_names_it(rig: Rig, corpus: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"'qwen3:8b'.*GET /v1/models"):
        await aresearch("How do tides work?", **openai(rig, corpus, model="qwen3:8b"))


def test_no_server_says_how_to_start_one(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--model", "m", "--search", "local", "--docs", str(corpus), "--mode", "loop"]
    code = main(["How do tides work?", *flags, "--provider", "openai", "--openai-url",
                 "http://127.0.0.1:9/v1"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == ModelServerUnavailableError.exit_code
    assert "No model server answers at http://127.0.0.1:9/v1" in err and "llama-server" in err


@pytest.mark.tiny
async def test_the_tiny_model_through_the_openai_api_writes_a_cited_report(
    tiny_rig: Rig, tmp_path: Path
) -> None:
    from ponder.testing.corpus import pydoc_corpus

    docs = tmp_path / "pydoc"
    pydoc_corpus(docs, ["json", "csv", "shlex"])
    before = len(tiny_rig.chat_log())
    report = await aresearch(
        "How do I read a JSON file into Python objects?",
        **openai(tiny_rig, docs, max_loops=1, num_predict=512),
    )
    calls = tiny_rig.chat_log()[before:]
    assert calls and all(e.path == "/v1/chat/completions" for e in calls)
    assert report.cited_sources() and any("json" in s.url for s in report.cited_sources())
    assert "[1]" in report.markdown
    prompt = json.dumps([m.get("content") for e in calls for m in e.messages])
    assert not any(line in report.markdown for line in ("<source", "</notes>"))
    assert report.stats.llm_calls == len(calls) and prompt


def test_doctor_asks_the_openai_server_for_its_models(rig: Rig) -> None:
    from ponder.interfaces.doctor import run_checks
    from ponder.settings.configuration import Configuration

    ready = Configuration.create(
        provider="openai", openai_base_url=f"{rig.url}/v1", model="scripted"
    )
    assert [c.outcome for c in run_checks(ready)][:2] == ["ok", "ok"]
    lacking = Configuration.create(provider="openai", openai_base_url=f"{rig.url}/v1", model="x")
    failed = [c for c in run_checks(lacking) if c.outcome == "fail"]
    assert failed and "'x'" in failed[0].message and failed[0].exit_code == 4
