"""Watched questions with the tiny model (gemma3 270M): a watch over a folder of the Python
docs' HTML pages, run again after each change to the folder — nothing, a fact changed in a
page the report cites, that page removed, a new page added — and what each change report
names, beside what was changed. The tiny model words its reports differently from run to
run; only a change in the sources may show.

Targets: the unchanged folder gives "nothing changed"; the changed page is named changed,
the removed page gone, the added page (when the run reads it) new, and no other source is;
every new finding rests on a page added or changed, every finding that no longer holds on a
page changed or removed. The tiny model's reports are mostly extractive: their findings are
the passages they quote.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from workspace import ROOT

from ponder.api import watches
from ponder.testing import TINY_MODEL, Rig
from ponder.testing.pydocs import html_root

sys.path.insert(0, str(ROOT / "tests"))
from support.reports import docs_corpus  # (the tests' pages of the docs)

QUESTION = "How do I read and write JSON files in Python?"
ADDED = "library/pickle"  # a page the folder lacks at first


def bench_watches(work: Path) -> dict[str, Any]:
    from ponder.testing.tiny import TinyModelBackend, model_path

    model_path()
    root = html_root(ROOT / ".cache")
    folder = docs_corpus(root, work / "watched")
    steps: list[dict[str, Any]] = []
    with (
        TinyModelBackend(n_ctx=4096, max_predict=96) as tiny,
        Rig(tiny, models=(TINY_MODEL,)) as rig,
    ):
        watch = watches.add(
            QUESTION, "1d", model=TINY_MODEL, ollama_base_url=rig.url, search="local",
            docs=[str(folder)], mode="loop", max_loops=1,
        )  # fmt: skip
        first = _run(watch)
        report = first["report"]
        cited = [s.url for s in report.cited_sources()] or [s.url for s in report.sources]
        steps.append(_step("first run", first, set(), set(), set()))
        steps.append(_step("nothing changed", _run(watch), set(), set(), set()))
        if cited:
            page = Path(cited[0])
            html = page.read_text(encoding="utf-8")
            page.write_text(html.replace("JSON", "JSON (v2)"), encoding="utf-8")
            steps.append(_step("a fact changed", _run(watch), set(), {str(page)}, set()))
            page.unlink()
            steps.append(_step("that page removed", _run(watch), set(), set(), {str(page)}))
        added = folder / f"{ADDED.replace('/', '-')}.html"
        added.write_bytes((root / f"{ADDED}.html").read_bytes())
        steps.append(_step("a page added", _run(watch), {str(added)}, set(), set(), maybe=True))
    return {
        "model": TINY_MODEL,
        "steps": [{k: v for k, v in s.items() if k != "report"} for s in steps],
        "target_met": all(step["as_expected"] for step in steps),
    }


def _run(watch: Any) -> dict[str, Any]:
    started = time.perf_counter()
    outcome = asyncio.run(watches.arun(watch))
    seconds = time.perf_counter() - started
    said = watches.changes(watch.id) or ""
    return {"report": outcome.report, "seconds": round(seconds, 1), "said": said,
            "headline": outcome.headline}  # fmt: skip


def _step(
    name: str, ran: dict[str, Any], new: set[str], changed: set[str], gone: set[str],
    maybe: bool = False,
) -> dict[str, Any]:  # fmt: skip
    said = ran["said"]
    named = {kind: _named(said, kind) for kind in ("New", "Changed", "Gone")}
    wanted = {"New": new, "Changed": changed, "Gone": gone}
    if maybe and ran["report"] is not None:  # new only when this run read the page
        read = {s.url for s in ran["report"].sources}
        wanted["New"] = new & read
    expected = named == wanted
    if not (new or changed or gone) and name != "first run":
        expected = expected and ran["headline"] == "Nothing changed."
    # A finding is new or no longer holds only on a page that was added, changed or removed.
    new_from = _finding_files(said, "## New findings")
    gone_from = _finding_files(said, "## Findings that no longer hold")
    expected = expected and new_from <= (new | changed) and gone_from <= (changed | gone)
    return {"step": name, "seconds": ran["seconds"], "headline": ran["headline"],
            "named": {k: sorted(Path(p).name for p in v) for k, v in named.items()},
            "findings_from": {"new": sorted(Path(p).name for p in new_from),
                              "gone": sorted(Path(p).name for p in gone_from)},
            "as_expected": expected, "report": ran["report"]}  # fmt: skip


def _finding_files(said: str, heading: str) -> set[str]:
    """The documents the findings under ``heading`` rest on."""
    if heading not in said:
        return set()
    section = said.split(heading, 1)[1].split("\n## ", 1)[0]
    return {line.rsplit("`", 2)[-2] for line in section.splitlines() if line.endswith("`)")}


def _named(said: str, kind: str) -> set[str]:
    """The documents the change report lists as ``kind`` (New, Changed, Gone)."""
    found = set()
    for line in said.splitlines():
        if line.startswith(f"- {kind}: ") and line.endswith("`"):
            found.add(line.rsplit("`", 2)[-2])
    return found


def table_rows(figures: dict[str, Any]) -> list[tuple[str, str]]:
    if not figures or "steps" not in figures:
        return []
    mark = "  ✓ target met" if figures["target_met"] else "  ✗ target MISSED"
    said = "; ".join(
        f"{s['step']}: {s['headline']} ({s['seconds']:g} s)" + ("" if s["as_expected"] else " ✗")
        for s in figures["steps"]
    )
    return [(f"watches: change reports with {figures['model']}", said + mark)]
