"""What a caller of a shared server is shown: the operator's endpoints and Ollama hosts by
their setting, private addresses and files outside the document folders not at all; the
caller's own documents and the public web as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from ponder.core.result import Report, RunStats
from ponder.settings.caller_view import ADDRESS, FILE, CallerView
from ponder.settings.configuration import Configuration

GPU, SECOND = "http://gpu-box.lan:11434", "http://10.0.0.7:11434"


@pytest.fixture
def view(tmp_path: Path) -> CallerView:
    operator = Configuration(
        ollama_base_url=f"{GPU},{SECOND}",
        searxng_url="http://10.0.0.5:8888",
        tavily_url="https://gateway.corp.example/tavily",
        docs=["/srv/docs"],
    )
    return CallerView(operator)


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("SearXNG at http://10.0.0.5:8888/search?q=tides failed — check searxng_url",
         "SearXNG at [searxng_url] failed — check searxng_url"),
        (f"Cannot reach Ollama at {GPU} — is it running?",
         "Cannot reach Ollama at [ollama host 1] — is it running?"),
        (f"{SECOND}/api/chat answered 500", "[ollama host 2] answered 500"),
        ("Tavily at https://gateway.corp.example/tavily/search: 401",
         "Tavily at [tavily_url]: 401"),
        ("MCP server at http://intranet:9000/mcp failed", f"MCP server at {ADDRESS} failed"),
        ("refused http://[fd00::5]/x and http://172.16.0.9/", f"refused {ADDRESS} and {ADDRESS}"),
        ("Cache disabled ([Errno 13] Permission denied: '/root/.cache/ponder/search.sqlite').",
         f"Cache disabled ([Errno 13] Permission denied: '{FILE}')."),
        ("Cannot write the vector matrix next to /var/cache/ponder/indexes/3f.sqlite",
         f"Cannot write the vector matrix next to {FILE}"),
        # The shapes a review found shown whole (issue 44).
        ("ConnectError: ('10.0.0.5', 8888) refused", f"ConnectError: ('{ADDRESS}', 8888) refused"),
        ("no answer from gpu-box:11434 or 10.0.0.5:8888",
         f"no answer from {ADDRESS} or {ADDRESS}:8888"),
        ("host intranet.example resolves to private address 10.1.2.3",
         f"host intranet.example resolves to private address {ADDRESS}"),
        ("cannot read file:///etc/ponder/secrets.toml", f"cannot read {FILE}"),
        ("index at ~/.cache/ponder/indexes/x.sqlite is locked", f"index at {FILE} is locked"),
        ("Permission denied: '/srv/private papers/payroll.md'",
         f"Permission denied: '{FILE}'"),
        ("refused fd00::5 and 2001:db8::1 too", f"refused {ADDRESS} and {ADDRESS} too"),
    ],
)  # fmt: skip
def test_the_operators_hosts_and_files_are_named_not_given(
    view: CallerView, said: str, shown: str
) -> None:
    assert view.text(said) == shown


def test_the_callers_documents_and_the_public_web_read_as_they_are(view: CallerView) -> None:
    plain = (
        "Skipped /srv/docs/tides/neap.pdf: encrypted. Document path /srv/docs does not exist. "
        "Could not read https://en.wikipedia.org/wiki/Tide: timeout; kept its snippet. "
        "Searched 3/4 of the files and/or pages at 12 files/s, at 12:30:45 from 8.8.8.8; "
        "see section 3.2.1 and ratio 1:2."
    )
    assert view.text(plain) == plain
    # A folder beside the offered one is not offered: its name is no prefix to trust.
    assert view.text("Skipped /srv/docs.bak/x.md") == f"Skipped {FILE}"


def test_statistics_count_each_host_under_its_name(view: CallerView) -> None:
    stats = RunStats(
        host_calls={GPU: 5, SECOND: 2, "http://scout:REDACTED@old-host:11434": 1},
        warnings=[f"Model call to {SECOND} timed out; retried."],
    )
    report = Report(
        topic="Tides", markdown=f"# Tides\n\nWhat went wrong:\n\n- {stats.warnings[0]}\n",
        summary="", sources=[], stats=stats, thread_id="t",
    )  # fmt: skip
    shown = view.report(report)
    assert shown.stats.host_calls == {"ollama host 1": 5, "ollama host 2": 2, "ollama host": 1}
    assert shown.stats.warnings == ["Model call to [ollama host 2] timed out; retried."]
    assert "10.0.0.7" not in shown.markdown and "[ollama host 2]" in shown.markdown
    assert "gpu-box" not in shown.model_dump_json()


def test_a_runs_settings_shown_to_a_caller_are_its_own(view: CallerView) -> None:
    stored = Configuration(ollama_base_url=GPU, max_loops=2).model_dump()
    shown = view.settings(stored)
    assert shown["max_loops"] == 2 and "ollama_base_url" not in shown
    assert not {"searxng_url", "tavily_url", "docs_roots", "mcp_servers"} & set(shown)
