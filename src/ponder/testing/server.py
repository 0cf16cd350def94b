"""An Ollama-compatible HTTP server for tests: the rig.

It serves chat in two wire formats over one backend and one fault engine — Ollama's own
API (:mod:`.ollama_wire`) and the OpenAI chat API (:mod:`.openai_wire`), faults injected by
:mod:`.faults` — plus what Ollama's clients ask besides: tags, show, version, ps and batch
embeddings. It keeps a request log that tests assert on.
"""

from __future__ import annotations

import contextlib
import json
import threading
from contextlib import AbstractContextManager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ponder.testing.embedding import TextEmbedder
from ponder.testing.handler import WIRES, RigHandler, RigServer
from ponder.testing.log import LogEntry
from ponder.testing.replies import Backend


class Rig:
    """Serve ``backend`` on 127.0.0.1 under the given model names. Use as a context manager.

    With an ``embedder``, ``/api/embed`` answers for the ``embed_models`` names; without one,
    it answers as an Ollama that has not pulled the model. ``one_at_a_time`` answers one
    chat at a time, the others waiting their turn.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        models: tuple[str, ...] = ("scripted",),
        port: int = 0,
        log_file: Path | None = None,
        embedder: TextEmbedder | None = None,
        embed_models: tuple[str, ...] = (),
        one_at_a_time: bool = False,
    ) -> None:
        self.backend = backend
        # Like one GPU running Ollama with default parallelism: chats queue, one answers.
        self.serial: AbstractContextManager[Any] = (
            threading.Lock() if one_at_a_time else contextlib.nullcontext()
        )
        self.models = models
        self.embedder = embedder
        self.embed_models = embed_models if embedder is not None else ()
        self.log: list[LogEntry] = []
        self.log_file = log_file
        self._lock = threading.Lock()
        self._idle = threading.Condition()
        self._in_flight = 0
        self._server = RigServer(("127.0.0.1", port), RigHandler)
        self._server.rig = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> Rig:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, let the backend stop generating, wait for replies in flight, then
        close the connections kept open between requests.

        A request thread still streaming when the interpreter exits would die inside the
        model's native code, which aborts the whole process. The rig does not close the
        backend or the embedder: they outlive it (one model, many rigs), and whoever
        created them closes them.
        """
        self._server.shutdown()
        interrupt = getattr(self.backend, "interrupt", None)
        if callable(interrupt):
            interrupt()
        self.wait_idle(timeout=30)
        self._server.hang_up()
        self._server.server_close()

    def __enter__(self) -> Rig:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no request is in flight (e.g. the rig has noticed a client hang up)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout=timeout)

    def chat_log(self) -> list[LogEntry]:
        """Chat requests, through Ollama's API or the OpenAI-compatible one."""
        with self._lock:
            return [e for e in self.log if e.path in WIRES]

    def embed_log(self) -> list[LogEntry]:
        with self._lock:
            return [e for e in self.log if e.path == "/api/embed"]

    def open_entry(self, entry: LogEntry) -> None:
        """Log a request as it arrives, so a client never sees its answer before the log does."""
        with self._lock:
            self.log.append(entry)
        with self._idle:
            self._in_flight += 1

    def record(self, entry: LogEntry) -> None:
        with self._idle:
            self._in_flight -= 1
            self._idle.notify_all()
        with self._lock:
            if self.log_file is not None:
                with self.log_file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(asdict(entry)) + "\n")
