"""`make demo`: a real research run, fully offline.

Starts the tiny-model rig (gemma3 270M behind the Ollama API), generates a small corpus from
the Python standard library's own documentation (pydoc, at run time), and researches a
question over it with ponder's research loop. The tiny model writes fluent nonsense; the
point is that every part runs for real, with no Ollama and no network.
"""

from __future__ import annotations

import importlib
import pydoc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["json", "csv", "sqlite3", "pathlib", "itertools", "functools", "heapq", "bisect"]
QUESTION = "How do I read and write JSON files in Python?"


def build_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in MODULES:
        module = importlib.import_module(name)
        text = pydoc.render_doc(module, renderer=pydoc.plaintext)
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def main() -> int:
    import os

    work = ROOT / ".demo"
    os.environ.setdefault("PONDER_DATA_DIR", str(work / "data"))
    os.environ.setdefault("PONDER_CACHE_DIR", str(work / "cache"))
    os.environ.setdefault("PONDER_MODEL_DIR", str(ROOT / ".cache"))

    from ponder import research
    from ponder.testing import TINY_MODEL, Rig
    from ponder.testing.tiny import TinyModelBackend

    corpus = build_corpus(work / "corpus")
    print(f"corpus: {len(MODULES)} pydoc pages in {corpus}")
    backend = TinyModelBackend(max_predict=200)
    print(f"tiny model loaded in {backend.load_seconds:.1f}s")
    with Rig(backend, models=(TINY_MODEL,)) as rig:
        started = time.perf_counter()
        report = research(
            QUESTION,
            model=TINY_MODEL,
            ollama_base_url=rig.url,
            search="local",
            docs=[str(corpus)],
            mode="loop",
            max_loops=2,
            queries_per_round=2,
            num_ctx=4096,
            num_predict=200,
            summary_tokens=400,
        )
        wall = time.perf_counter() - started
        per_round = _per_round(rig.chat_log())
    out = work / "report.md"
    out.write_text(report.markdown, encoding="utf-8")
    stats = report.stats
    print(report.markdown)
    print(
        f"rounds {stats.rounds} · LLM calls {stats.llm_calls} · prompt tokens "
        f"{stats.prompt_tokens} · completion tokens {stats.completion_tokens} · "
        f"{wall:.1f}s wall"
    )
    for number, (calls, tokens) in enumerate(per_round, start=1):
        print(f"  round {number}: {calls} LLM calls, {tokens} prompt tokens")
    print(f"report written to {out}")
    return 0


def _per_round(log: list) -> list[tuple[int, int]]:
    """LLM calls and prompt tokens per search round; a round ends with its Reflection call.

    Calls after the last Reflection (the report) belong to no round and are left out.
    """
    rounds: list[tuple[int, int]] = []
    calls = tokens = 0
    for entry in log:
        calls += 1
        tokens += entry.prompt_tokens
        if entry.schema == "Reflection":
            rounds.append((calls, tokens))
            calls = tokens = 0
    return rounds


if __name__ == "__main__":
    sys.exit(main())
