"""Secrets go only where the operator sent them: a URL's credentials (user:password@, a
token in the query) are used for that URL and appear nowhere else — not in the run history,
the checkpoints, the report's statistics, warnings or error messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once
from support.edges import history

from ponder import aresearch, aresume
from ponder.api import ClarificationNeeded
from ponder.core.errors import OllamaUnavailableError
from ponder.core.redact import redact
from ponder.interfaces.cli import main
from ponder.testing import Rig, ScriptedBackend

SECRET = "hunter2-5e1c"


def test_credentials_in_urls_are_redacted_and_nothing_else_is() -> None:
    assert (
        redact(f"at http://scout:{SECRET}@gpu:11434/v1 now")
        == "at http://scout:REDACTED@gpu:11434/v1 now"
    )
    assert redact(f"https://h/s?q=tides&api_key={SECRET}&x=1") == (
        "https://h/s?q=tides&api_key=REDACTED&x=1"
    )
    for name in ("token", "access_token", "key", "sig", "password", "X-Amz-Signature"):
        assert SECRET not in redact(f"https://h/p?{name}={SECRET}")
    plain = "https://en.wikipedia.org/wiki/Tide?action=raw#Moon, postgresql://ponder@db/x"
    assert redact(plain) == plain


TOKEN = "tok9f8e7d6c5b4a39281706e5"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        # A proxy that takes its key as a path segment, and a webhook's secret path.
        (f"http://gpu:11434/{TOKEN}/api/chat", "http://gpu:11434/REDACTED/api/chat"),
        ("https://hooks.example/services/T0A1B2C3D/ZXhhbXBsZVNlY3JldFRva2Vu",
         "https://hooks.example/services/T0A1B2C3D/REDACTED"),
        # A token as the user name, and a user name that is itself a token.
        (f"https://{TOKEN}@git.example/o/r.git", "https://REDACTED@git.example/o/r.git"),
        (f"https://{TOKEN}:x-oauth@git.example/", "https://REDACTED:REDACTED@git.example/"),
    ],
)  # fmt: skip
def test_secrets_in_a_urls_path_and_user_name_are_redacted(url: str, shown: str) -> None:
    assert redact(f"failed: {url} (timeout)") == f"failed: {shown} (timeout)"


def test_paths_of_words_names_and_numbers_are_kept() -> None:
    plain = (
        "https://arxiv.org/abs/2401.12345v2 https://docs.python.org/3/library/json.html "
        "https://example.org/how-to-read-json-files-in-python-3/ http://[::1]:8080/v1/api "
        "https://en.wikipedia.org/wiki/List_of_tidal_power_stations http://u@h/x"
    )
    assert redact(plain) == plain


def test_error_messages_never_show_the_credentials() -> None:
    error = OllamaUnavailableError(f"http://scout:{SECRET}@127.0.0.1:9")
    assert SECRET not in str(error) and "http://scout:REDACTED@127.0.0.1:9" in str(error)


def stored_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


async def test_a_run_keeps_its_credentials_out_of_everything_it_stores(
    rig: Rig, scripted: ScriptedBackend, corpus: Path, isolated: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Ollama behind a proxy with basic auth: the run works, pauses, and resumes with the
    credentials from the environment, and stores them nowhere."""
    with_credentials = rig.url.replace("http://", f"http://scout:{SECRET}@")
    ask_once(scripted)
    settings = {"model": "scripted", "search": "local", "docs": [str(corpus)], "mode": "deep"}
    with pytest.raises(ClarificationNeeded) as paused:
        await aresearch("Tides and harbours", ollama_base_url=with_credentials, **settings)
    thread = paused.value.thread_id
    assert history().get(thread).config["ollama_base_url"].startswith("http://scout:REDACTED@")
    monkeypatch.setenv("OLLAMA_HOST", with_credentials)  # where a resumed run finds them
    calls = len(rig.chat_log())
    report = await aresume(thread, "The Atlantic coast")
    assert len(rig.chat_log()) > calls  # it ran on, at the real address
    assert SECRET not in report.model_dump_json()
    assert all(host.startswith("http://scout:REDACTED@") for host in report.stats.host_calls)
    assert SECRET.encode() not in stored_bytes(isolated / "data")


def test_a_failure_says_where_without_saying_the_secret(
    corpus: Path, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["How do tides work?", "--search", "local", "--docs", str(corpus),
                 "--ollama-url", f"http://scout:{SECRET}@127.0.0.1:9"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == OllamaUnavailableError.exit_code
    assert "scout:REDACTED@127.0.0.1:9" in err and SECRET not in err
    assert SECRET.encode() not in stored_bytes(isolated / "data")


async def test_the_keys_in_the_environment_reach_no_stored_run(
    rig: Rig, corpus: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keys travel with a run (LangGraph's runtime context), never in its settings: not
    in the checkpoints, the run history or the report."""
    for name in ("TAVILY_API_KEY", "OPENAI_API_KEY", "PONDER_SERVER_TOKEN", "PONDER_MCP_TOKEN"):
        monkeypatch.setenv(name, f"{name}-{SECRET}")
    report = await aresearch(
        "How do tides work?", model="scripted", ollama_base_url=rig.url, search="local",
        docs=[str(corpus)], mode="loop", max_loops=1,
    )  # fmt: skip
    assert report.sources and SECRET not in report.model_dump_json()
    assert SECRET.encode() not in stored_bytes(isolated / "data")
