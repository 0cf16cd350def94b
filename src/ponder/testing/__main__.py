"""Run the rig as a process: ``python -m ponder.testing --backend tiny|smol|scripted``.

``tiny`` serves gemma3 270M, ``smol`` SmolLM2-135M-Instruct (``ponder.testing.models``);
``--embed`` adds ``/api/embed``. Prints ``READY <url>`` once it listens, then serves until
killed. A scripted rig reads an optional JSON file
``{"overrides": {title: reply}, "delay": seconds}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path

from ponder.testing import Rig, ScriptedBackend
from ponder.testing.embedding import (
    EMBED_MODEL,
    TINY_EMBED_MODEL,
    TextEmbedder,
    TrigramEmbedder,
)
from ponder.testing.models import GEMMA3, SMOLLM2, ModelNotInstalledError
from ponder.testing.replies import Backend

REAL_MODELS = {"tiny": GEMMA3, "smol": SMOLLM2}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ponder.testing")
    parser.add_argument("--backend", choices=[*REAL_MODELS, "scripted"], default="scripted")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON file with overrides and delay")
    parser.add_argument("--log", type=Path, help="append every request to this JSONL file")
    parser.add_argument("--max-predict", type=int, default=256)
    parser.add_argument(
        "--embed",
        action="store_true",
        help=f"serve /api/embed too: as {EMBED_MODEL} (scripted), else as {TINY_EMBED_MODEL}",
    )
    args = parser.parse_args(argv)

    backend: Backend
    real = REAL_MODELS.get(args.backend)
    if real:
        from ponder.testing.tiny import TinyModelBackend

        try:
            backend = TinyModelBackend(real, max_predict=args.max_predict)
        except ModelNotInstalledError as missing:
            print(f"error: {missing}", file=sys.stderr)
            return 2
        models: tuple[str, ...] = (real.name,)
    else:
        script = json.loads(args.script.read_text()) if args.script else {}
        backend = ScriptedBackend(
            overrides=script.get("overrides", {}), delay=float(script.get("delay", 0))
        )
        models = ("scripted", *script.get("models", []))
    embedder: TextEmbedder | None = None
    embed_models: tuple[str, ...] = ()
    if args.embed and real:
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
