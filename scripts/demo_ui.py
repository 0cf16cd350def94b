"""`make demo-ui`: `ponder ui` in the browser, fully offline, with no Ollama.

Serves the web page with the tiny model (gemma3 270M behind the Ollama API, in this
process) over the demo's corpus of pydoc pages, at http://127.0.0.1:8765/ — ask, watch
the run, read the report and open its citations' evidence. Ctrl-C stops it.

``--screenshot PATH`` instead asks the demo's question in Debian's chromium (headless,
through Playwright), waits for the checked report and saves the top of its page as PNG:
the picture in the README is made this way (`make demo-ui-screenshot`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from demo import MODULES, QUESTION, ROOT

PORT = 8765


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/demo_ui.py")
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--screenshot", type=Path, help="save the finished report's page here")
    args = parser.parse_args(argv)

    work = ROOT / ".demo"
    os.environ.setdefault("PONDER_MODEL_DIR", str(ROOT / ".cache"))
    from ponder.testing import TINY_MODEL, Rig
    from ponder.testing.corpus import pydoc_corpus
    from ponder.testing.tiny import TinyModelBackend

    corpus = work / "corpus"
    pydoc_corpus(corpus, MODULES)
    with TinyModelBackend(max_predict=1024) as backend, Rig(backend, models=(TINY_MODEL,)) as rig:
        env = {
            "PONDER_DATA_DIR": str(work / ("shot" if args.screenshot else "data")),
            "PONDER_CACHE_DIR": str(work / "cache"),
            "PONDER_MODEL": TINY_MODEL,
            "PONDER_OLLAMA_BASE_URL": rig.url,
            "PONDER_SEARCH": "local",
            "PONDER_DOCS": str(corpus),
            "PONDER_MAX_LOOPS": "2",
            "PONDER_QUERIES_PER_ROUND": "2",
        }
        if args.screenshot:
            shutil.rmtree(env["PONDER_DATA_DIR"], ignore_errors=True)  # a history of one run
        command = [sys.executable, "-m", "ponder", "ui", "--port", str(args.port)]
        with subprocess.Popen(command, env={**os.environ, **env}) as server:
            try:
                if args.screenshot:
                    return _screenshot(f"http://127.0.0.1:{args.port}", args.screenshot)
                server.wait()
            except KeyboardInterrupt:
                pass
            finally:
                server.terminate()
    return 0


def _screenshot(url: str, target: Path) -> int:
    import httpx
    from playwright.sync_api import sync_playwright

    for _ in range(100):  # the server starts
        try:
            httpx.get(url + "/static/style.css", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 900}, device_scale_factor=1)
        page.goto(url + "/")
        page.fill("#topic", QUESTION)
        page.check("input[name=mode][value=loop]")
        page.click("form.ask button[type=submit]")
        page.wait_for_selector("#status.status-done", timeout=600_000)
        page.locator("#report a.cite").first.wait_for(timeout=30_000)
        target.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(target))
        browser.close()
    print(f"screenshot saved to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
