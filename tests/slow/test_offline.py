"""Offline for real: `ponder "question"` in a network namespace with only loopback, as on a
laptop on a train, with the scripted rig standing in for Ollama inside the namespace.

No setting says the run is offline: it finds out. With nothing offline set up it stops
within seconds with its own exit code and a message that names --docs; with a documents
folder in the environment it cites the folder, says once that the web was skipped, and —
traced with strace, every thread — attempts no connection beyond loopback once the model
is first asked, up to writing the report as a PDF.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import write_corpus

from ponder.core.errors import ExitCode

QUESTION = "How do spring tides differ from neap tides?"
# One network namespace: the rig, then ponder, as a user starts them; what ponder printed,
# its exit code and how long it took are left in the folder.
SCRIPT = r"""
set -u
ip link set lo up
"$PY" -m ponder.testing --backend scripted > rig.out 2>&1 &
rig=$!
for _ in $(seq 300); do grep -q READY rig.out && break; sleep 0.1; done
export OLLAMA_HOST=$(awk '/READY/ {print $2}' rig.out)
started=$(date +%s.%N)
$TRACE "$PY" -m ponder "$QUESTION" --json --out "$OUT" > out.json 2> err.txt
code=$?
ended=$(date +%s.%N)
echo "$code $started $ended" > result.txt
kill $rig
wait $rig
"""


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if found is None:
        pytest.fail(f"{name} is not installed: `make test` installs it (Debian's package).")
    return found


def offline(folder: Path, trace: bool = False, **env: str) -> tuple[int, float, str, str]:
    """Run the script in a new network namespace (only loopback); exit code, seconds,
    stdout and stderr of ponder."""
    strace = f"{tool('strace')} -f -qq -e trace=connect,sendto -s 96 -o trace.txt" if trace else ""
    environ = {
        **os.environ,
        "PATH": f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin",
        "PY": sys.executable,
        "QUESTION": QUESTION,
        "OUT": "report.md",
        "TRACE": strace,
        "PONDER_DATA_DIR": str(folder / "data"),
        "PONDER_CACHE_DIR": str(folder / "cache"),
        "PONDER_MODEL": "scripted",
        "PONDER_MAX_LOOPS": "2",
        "PONDER_MODE": "loop",
        **env,
    }
    for name in list(environ):
        if name.lower().endswith("_proxy"):
            del environ[name]  # a proxy would be a second way out
    done = subprocess.run(
        [tool("unshare"), "--map-root-user", "--net", "bash", "-c", SCRIPT],
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert (folder / "result.txt").exists(), done.stderr
    code, started, ended = (folder / "result.txt").read_text().split()
    out = (folder / "out.json").read_text(encoding="utf-8")
    err = (folder / "err.txt").read_text(encoding="utf-8")
    return int(code), float(ended) - float(started), out, err


def test_with_nothing_offline_it_stops_within_seconds_and_says_what_to_do(
    workdir: Path,
) -> None:
    code, seconds, out, err = offline(workdir)
    assert code == ExitCode.OFFLINE, err
    assert seconds < 5, f"took {seconds:.1f}s"
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "--docs" in lines[0] and "cannot be reached" in lines[0], err
    assert "Traceback" not in err and out == ""


CONNECT = re.compile(r"^(\d+)\s+connect\(\d+, \{sa_family=AF_INET6?, (.*?)\}", re.M)
SENDTO = re.compile(r"^(\d+)\s+sendto\(\d+, \"POST /api/chat", re.M)


def test_with_documents_it_cites_them_says_the_web_was_skipped_and_goes_nowhere_else(
    workdir: Path,
) -> None:
    notes = write_corpus(workdir / "notes")
    code, _, out, err = offline(workdir, trace=True, PONDER_DOCS=str(notes), OUT="report.pdf")
    assert code == 0, err
    assert (workdir / "report.pdf").read_bytes().startswith(b"%PDF-")  # typeset in the trace
    report = json.loads(out)
    cited = [s for s in report["sources"] if s["cited"]]
    assert cited and all(s["url"].startswith(str(notes)) for s in cited)
    skipped = [w for w in report["stats"]["warnings"] if "the web was skipped" in w]
    assert len(skipped) == 1 and "cannot be reached" in skipped[0], report["stats"]["warnings"]
    assert not [w for w in report["stats"]["warnings"] if "Search for" in w]
    assert "Traceback" not in err and "warning" not in err.lower(), err
    trace = (workdir / "trace.txt").read_text()
    first_model_call = SENDTO.search(trace)
    assert first_model_call, "the model was asked"
    after = trace[first_model_call.start() :]
    outside = [target for _, target in CONNECT.findall(after) if not _loopback(target)]
    assert outside == [], f"connections attempted after the first check: {outside[:5]}"
    before = [t for _, t in CONNECT.findall(trace[: first_model_call.start()])]
    assert any(not _loopback(t) for t in before), "the check asked the web (its name server)"


def _loopback(target: str) -> bool:
    """``sin_port=htons(53), sin_addr=inet_addr("10.0.0.1")`` → whether it is loopback."""
    address = re.search(r'inet_(?:addr|pton)\((?:AF_INET6?, )?"([^"]+)"', target)
    if address is None:
        return "AF_UNIX" in target or "sun_path" in target
    host = address.group(1)
    return host.startswith("127.") or host in ("::1", "::ffff:127.0.0.1")


def test_with_only_a_zim_archive_it_cites_the_archive(workdir: Path) -> None:
    """No documents, no flag: an offline encyclopedia in the environment is what it researches."""
    from support import python_docs

    from ponder.testing.zim import write_zim

    root = Path(python_docs())
    pages = sorted(str(p.relative_to(root)) for p in (root / "library").glob("[g-r]*.html"))
    archive = write_zim(root, pages, workdir / "python-docs.zim")
    question = "How do I compress and decompress files in the gzip format?"
    code, _, out, err = offline(workdir, PONDER_ZIM=str(archive), QUESTION=question)
    assert code == 0, err
    report = json.loads(out)
    cited = [s for s in report["sources"] if s["cited"]]
    assert cited and all(s["url"].startswith(f"{archive}/library/") for s in cited), cited
    skipped = [w for w in report["stats"]["warnings"] if "the web was skipped" in w]
    assert len(skipped) == 1 and "Kiwix ZIM archives" in skipped[0], report["stats"]["warnings"]
    assert "Traceback" not in err, err
