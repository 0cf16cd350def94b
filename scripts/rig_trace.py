"""Every request ponder sends the scripted rig, and every reply, for a fixed set of runs.

A behaviour-preserving change (moving modules, generating settings, regrouping a stage)
must leave these traces identical: run this before and after and compare.

    python scripts/rig_trace.py before.json
    … the change …
    python scripts/rig_trace.py after.json --compare before.json

The runs: a focused loop over a small corpus, the deep pipeline with a clarifying question
answered, a follow-up on a finished thread, a report whose stream breaks (the extractive
fallback), and a two-part question over pydoc pages. Requests of parallel steps are
sorted, so only what was asked and answered counts, not the order threads happened in.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = {
    "tides.md": "# Tides\n\nTides are the rise and fall of sea levels caused by the pull of "
    "the Moon and the Sun. Most coasts see two high tides a day.\n\nSpring tides come when "
    "the Sun and Moon align; neap tides when they are at right angles.\n",
    "moon.txt": "The Moon orbits the Earth every 27.3 days. Its gravity raises a bulge in the "
    "ocean on the side facing it and another on the far side.\n",
    "harbours.rst": "Harbours\n========\n\nHarbour pilots read tide tables to know when ships "
    "can enter shallow ports safely at high tide.\n",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/rig_trace.py")
    parser.add_argument("out", type=Path, help="where to write the traces (JSON)")
    parser.add_argument("--compare", type=Path, help="traces to compare with")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="ponder-trace-"))
    os.environ.update(PONDER_DATA_DIR=str(work / "data"), PONDER_CACHE_DIR=str(work / "cache"))
    traces = asyncio.run(_all(work))
    args.out.write_text(json.dumps(traces, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{sum(len(t['requests']) for t in traces.values())} requests in {args.out}")
    if args.compare:
        return _compare(json.loads(args.compare.read_text(encoding="utf-8")), traces)
    return 0


async def _all(work: Path) -> dict[str, Any]:
    from ponder.testing import Rig, ScriptedBackend
    from ponder.testing.corpus import pydoc_corpus
    from ponder.testing.faults import Fault

    corpus = work / "corpus"
    corpus.mkdir()
    for name, text in CORPUS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    pydocs = work / "pydocs"
    pydoc_corpus(pydocs, ["json", "gzip", "csv", "pathlib"])
    traces: dict[str, Any] = {}
    backend = ScriptedBackend()
    with Rig(backend, models=("scripted",)) as rig:
        base = {"model": "scripted", "ollama_base_url": rig.url, "search": "local"}
        tides = {**base, "docs": [str(corpus)]}
        scenarios = [
            ("loop", "How do tides work?", {**tides, "mode": "loop", "max_loops": 2}),
            ("deep", "Tides and harbours", {**tides, "mode": "deep", "max_loops": 1}),
            ("broken-report", "Why two tides a day?", {**tides, "mode": "loop", "max_loops": 1}),
            (
                "two-parts",
                "How do I compress a JSON document with gzip and read it back?",
                {**base, "docs": [str(pydocs)], "mode": "loop", "max_loops": 2},
            ),
        ]
        for name, topic, settings in scenarios:
            backend.overrides.clear()
            if name == "deep":
                _ask_once(backend)
            if name == "broken-report":
                backend.overrides["text"] = Fault("stream_error")
            traces[name] = await _run(rig, topic, settings, name == "deep", name == "loop")
    return _anonymous(traces, work)


async def _run(rig: Any, topic: str, settings: dict[str, Any], answer: bool, follow: bool) -> Any:
    from ponder import aresearch
    from ponder.api import aresume, stream_followup
    from ponder.core.errors import ClarificationNeeded
    from ponder.core.result import Report

    seen = len(rig.chat_log())
    reports = []
    try:
        report = await aresearch(topic, **settings)
    except ClarificationNeeded as asked:
        report = await aresume(asked.thread_id, "The Atlantic coast") if answer else None
    if report is not None:
        reports.append(report.markdown)
        if follow:
            async for item in stream_followup(report.thread_id, "And what are neap tides?"):
                if isinstance(item, Report):
                    reports.append(item.markdown)
    requests = [_entry(e) for e in rig.chat_log()[seen:]]
    return {"requests": sorted(requests, key=lambda r: json.dumps(r, sort_keys=True)),
            "reports": reports}  # fmt: skip


def _entry(entry: Any) -> dict[str, Any]:
    return {
        "path": entry.path,
        "schema": entry.schema,
        "options": entry.options,
        "stream": entry.stream,
        "messages": entry.messages,
        "inputs": entry.inputs,
        "reply": entry.reply,
        "fault": entry.fault,
    }


def _ask_once(backend: Any) -> None:
    import itertools

    asked = itertools.count()
    backend.overrides["Clarification"] = lambda _r: {
        "need_clarification": next(asked) == 0,
        "question": "Which coast do you mean?",
        "verification": "ok",
    }


def _anonymous(traces: dict[str, Any], work: Path) -> dict[str, Any]:
    """The run's temporary folder as a name, so that two runs compare."""
    text = json.dumps(traces).replace(str(work), "<work>")
    return dict(json.loads(text))


def _compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    same = True
    for name in sorted(set(before) | set(after)):
        old = json.dumps(before.get(name), indent=1, sort_keys=True).splitlines()
        new = json.dumps(after.get(name), indent=1, sort_keys=True).splitlines()
        if old != new:
            same = False
            print(f"--- {name} differs:")
            print("\n".join(list(difflib.unified_diff(old, new, lineterm="", n=2))[:80]))
    print("identical" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
