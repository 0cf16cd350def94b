"""Run the rig as a process: ``python -m ponder.testing --backend tiny|scripted [--embed]``.

Prints ``READY <url>`` once it listens, then serves until killed. A scripted rig reads an
optional JSON file ``{"overrides": {title: reply}, "delay": seconds}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path

from ponder.testing import TINY_MODEL, Rig, ScriptedBackend
from ponder.testing.embedding import (
    EMBED_MODEL,
    TINY_EMBED_MODEL,
    TextEmbedder,
    TrigramEmbedder,
)
from ponder.testing.replies import Backend


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ponder.testing")
    parser.add_argument("--backend", choices=["tiny", "scripted"], default="scripted")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON file with overrides and delay")
    parser.add_argument("--log", type=Path, help="append every request to this JSONL file")
    parser.add_argument("--max-predict", type=int, default=256)
    parser.add_argument(
        "--embed",
        action="store_true",
        help=f"serve /api/embed too: as {EMBED_MODEL} (scripted) or {TINY_EMBED_MODEL} (tiny)",
    )
    args = parser.parse_args(argv)

    backend: Backend
    if args.backend == "tiny":
        from ponder.testing.tiny import TinyModelBackend

        backend = TinyModelBackend(max_predict=args.max_predict)
        models: tuple[str, ...] = (TINY_MODEL,)
    else:
        script = json.loads(args.script.read_text()) if args.script else {}
        backend = ScriptedBackend(
            overrides=script.get("overrides", {}), delay=float(script.get("delay", 0))
        )
        models = ("scripted", *script.get("models", []))
    embedder: TextEmbedder | None = None
    embed_models: tuple[str, ...] = ()
    if args.embed and args.backend == "tiny":
        from ponder.testing.tiny import TinyEmbedder

        embedder, embed_models = TinyEmbedder(), (TINY_EMBED_MODEL,)
    elif args.embed:
        embedder, embed_models = TrigramEmbedder(), (EMBED_MODEL,)
    rig = Rig(
        backend,
        models=models,
        port=args.port,
        log_file=args.log,
        embedder=embedder,
        embed_models=embed_models,
    ).start()
    print(f"READY {rig.url}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    rig.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
