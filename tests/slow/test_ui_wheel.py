"""The UI as a user installs it: the wheel built from this checkout, installed in a fresh
virtual environment, serves its page with its styles and script, and makes a PDF with
the export's layout (an asset left out of the package shows up here, not on a user's
machine)."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

from support import UiServer

ROOT = Path(__file__).resolve().parents[2]
EXPORT_PDF = """
from ponder import Report, RunStats, export
report = Report(topic="Tides?", markdown="# Tides\\n\\nThey rise.", summary="",
                sources=[], stats=RunStats(), thread_id="t")
print(export(report, "pdf")[:5].decode())
"""


def test_the_installed_wheel_serves_the_page_with_its_assets(tmp_path: Path, browser: Any) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("ponder-*.whl"))

    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=True)
    python = fresh / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    # ponder's dependencies come from the test's environment, ponder itself only from the
    # wheel: a plain path in a .pth does not run that environment's editable-install hook.
    packages = next((fresh / "lib").glob("python3*/site-packages"))
    (packages / "deps.pth").write_text(site.getsitepackages()[0] + "\n", encoding="utf-8")
    where = subprocess.run(
        [str(python), "-c", "import ponder; print(ponder.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert where.startswith(str(packages)), where
    # The PDF export's layout (a .typ file beside its module) ships in the wheel too.
    exported = subprocess.run(
        [str(python), "-c", EXPORT_PDF], capture_output=True, text=True, timeout=120
    )
    assert exported.returncode == 0 and exported.stdout.startswith("%PDF-"), exported.stderr

    env = {
        "PATH": f"{fresh / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PONDER_DATA_DIR": str(tmp_path / "data"),
        "PONDER_CACHE_DIR": str(tmp_path / "cache"),
    }
    server = UiServer(env, python=str(python)).start()
    try:
        page = browser.new_page()
        failed: list[str] = []
        page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
        page.goto(server.url + "/")
        page.wait_for_selector("#model-health.bad", timeout=10_000)  # the script ran
        background = page.eval_on_selector(
            "form.ask button", "b => getComputedStyle(b).backgroundColor"
        )
        assert background not in ("rgba(0, 0, 0, 0)", "rgb(239, 239, 239)"), "the styles loaded"
        assert not failed, failed
        page.close()
    finally:
        assert server.stop() == 0
