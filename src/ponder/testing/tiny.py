"""The tiny real models run in-process by xllamacpp (which models: ``ponder.testing.models``).

One backend serves any of them, the prose streamed token by token and JSON-schema requests
decoded under an llguidance grammar; the embedder uses gemma3 270M.

Each holds an ``xllamacpp.Server``: llama.cpp's loop runs on a native thread until the server
object is freed. Freed while the interpreter tears itself down (or never, then torn down by
the C++ runtime at ``exit``), it segfaults, so whoever creates one closes it: ``with`` or
``close()``. An ``atexit`` hook closes any left open, as a last resort.
"""

from __future__ import annotations

import atexit
import json
import queue
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any, Protocol

from ponder.testing.models import GEMMA3, ModelSpec, model_path
from ponder.testing.replies import Answer, ChatRequest, Reply

# llguidance (xllamacpp's grammar engine) otherwise lets the model indent freely and add
# properties, and a 270M model spends a small token budget on whitespace and invented keys
# before the JSON is done. The grammar is passed directly: `response_format` drops these
# options.
_COMPACT = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}


def compact_grammar(schema: dict[str, Any]) -> str:
    """An llguidance grammar for ``schema``: compact JSON, no properties beyond the schema's."""
    closed = _closed(schema)
    return "%llguidance {}\nstart: %json " + json.dumps({**closed, "x-guidance": _COMPACT})


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _closed(value) for key, value in node.items()}
    if out.get("type") == "object" and "properties" in out:
        out.setdefault("additionalProperties", False)
    return out


class _Closable(Protocol):
    def close(self) -> None: ...


_OPEN: weakref.WeakSet[_Closable] = weakref.WeakSet()


@atexit.register
def _close_forgotten() -> None:
    """atexit runs while modules and threads still work, unlike the teardown after it."""
    for model in list(_OPEN):
        model.close()


class TinyModelBackend:
    """Answers with a real model (gemma3 270M unless told). Calls are serialised: one slot,
    two cores. A context manager: leaving it frees the model (``close``)."""

    def __init__(
        self,
        model: ModelSpec = GEMMA3,
        *,
        n_ctx: int = 8192,
        max_predict: int = 256,
        threads: int = 2,
    ) -> None:
        import xllamacpp

        started = time.perf_counter()
        params = _params(str(model.locate()), n_ctx, threads)
        params.use_jinja = True
        if model.chat_template is not None:  # else llama.cpp applies the GGUF's own
            params.chat_template = model.chat_template
        self._server: Any = xllamacpp.Server(params)
        self.load_seconds = time.perf_counter() - started
        self.model = model
        self.n_ctx = n_ctx
        self.max_predict = max_predict
        self._lock = threading.Lock()
        self._closing = threading.Event()
        _OPEN.add(self)

    def __enter__(self) -> TinyModelBackend:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def interrupt(self) -> None:
        """Stop any generation at its next token and wait until the model is idle (it stays
        usable: a later request generates as usual). A rig calls this when it stops."""
        self._closing.set()
        with self._lock:
            self._closing.clear()

    def close(self) -> None:
        """Stop any generation, then free the model: xllamacpp's server ends llama.cpp's loop
        and joins its thread when the object goes. Idempotent; a later request is an error."""
        self._closing.set()
        with self._lock:
            self._server = None  # the only reference: its destructor runs here, not at exit
        _OPEN.discard(self)

    def answer(self, request: ChatRequest) -> Answer:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [
                {"role": m.get("role", "user"), "content": str(m.get("content") or "")}
                for m in request.messages
            ],
            "max_tokens": min(int(request.options.get("num_predict") or 128), self.max_predict),
            "temperature": float(request.options.get("temperature", 0.2)),
            "seed": int(request.options.get("seed", 7)),
        }
        if "repeat_penalty" in request.options:
            body["repeat_penalty"] = float(request.options["repeat_penalty"])
        if isinstance(request.format, dict):
            body["grammar"] = compact_grammar(request.format)
        elif request.format == "json":
            body["response_format"] = {"type": "json_object"}
        else:  # prose streams token by token, so a client can stop a looping answer
            reply = Reply()
            reply.pieces = self._generate(body, reply)
            return reply
        with self._lock:
            result = self._open().handle_chat_completions(body)
        if "error" in result:
            raise RuntimeError(str(result["error"]))
        choice = result["choices"][0]
        usage = result.get("usage", {})
        return Reply(
            str(choice["message"].get("content") or ""),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            eval_tokens=int(usage.get("completion_tokens", 0)),
        )

    def _generate(self, body: dict[str, Any], reply: Reply) -> Iterator[str]:
        """Yield tokens as the model writes them; closing the iterator stops the model.

        xllamacpp reports each token to a callback on the calling thread, so generation runs
        on a worker thread and hands tokens over a queue; the callback answers ``True`` (stop)
        once the reader has gone. The reply's token counts are filled in at the end.
        """
        tokens: queue.Queue[dict[str, Any] | None] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: dict[str, Any]) -> bool:
            tokens.put(chunk)
            return stop.is_set() or self._closing.is_set()

        def work() -> None:
            try:
                with self._lock:
                    request = {**body, "stream": True, "stream_options": {"include_usage": True}}
                    self._open().handle_chat_completions(request, on_chunk)
            finally:
                tokens.put(None)

        worker = threading.Thread(target=work, daemon=True, name="tiny-generate")
        worker.start()
        try:
            while (chunk := tokens.get()) is not None:
                usage = chunk.get("usage")
                if usage:
                    reply.prompt_tokens = int(usage.get("prompt_tokens", 0))
                    reply.eval_tokens = int(usage.get("completion_tokens", 0))
                for choice in chunk.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        yield str(piece)
        finally:
            stop.set()
            worker.join()  # the model stops at its next token; never leave it running

    def _open(self) -> Any:
        """The server, under the lock; a closed backend is a programming error."""
        if self._server is None:
            raise RuntimeError(f"{self.model.name} was closed; create a new TinyModelBackend")
        return self._server


class TinyEmbedder:
    """Embeddings from the same GGUF: a second xllamacpp server with embeddings on and mean
    pooling (640 dimensions). Loaded on first use, about 1.5 s; one request at a time. A
    context manager like ``TinyModelBackend``; after ``close`` the next use loads it again."""

    def __init__(self, threads: int = 2) -> None:
        self.threads = threads
        self._server: Any = None
        self._lock = threading.Lock()

    def __enter__(self) -> TinyEmbedder:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Free the model now (see ``TinyModelBackend.close``)."""
        with self._lock:
            self._server = None
        _OPEN.discard(self)

    def embed(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            if self._server is None:
                self._server = self._load()
                _OPEN.add(self)
            result = self._server.handle_embeddings({"input": texts})
        if "error" in result:
            raise RuntimeError(str(result["error"]))
        ordered = sorted(result["data"], key=lambda item: int(item.get("index", 0)))
        return [list(item["embedding"]) for item in ordered]

    def _load(self) -> Any:
        import xllamacpp

        params = _params(str(model_path()), 4096, self.threads)
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
        return xllamacpp.Server(params)


def _params(path: str, n_ctx: int, threads: int) -> Any:
    """xllamacpp settings shared by the chat and the embedding servers: one slot, quiet."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    return params
