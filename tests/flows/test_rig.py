"""The rig speaks Ollama's HTTP API as the real clients expect it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import ollama

from ponder.testing import ChatRequest, Fault, Reply, Rig, ScriptedBackend


def test_endpoints_answer_like_ollama(rig: Rig) -> None:
    with httpx.Client(base_url=rig.url) as client:
        assert client.get("/").text == "Ollama is running"
        assert "version" in client.get("/api/version").json()
        [model] = client.get("/api/tags").json()["models"]
        assert model["name"] == model["model"] == "scripted"
        assert client.get("/api/ps").status_code == 200
        shown = client.post("/api/show", json={"model": "scripted"}).json()
        assert "model_info" in shown
        missing = client.post("/api/show", json={"model": "nope"})
        assert missing.status_code == 404 and "error" in missing.json()


def test_stream_chunks_all_carry_message_and_last_has_counts(
    rig: Rig, scripted: ScriptedBackend
) -> None:
    scripted.push("A reply long enough to be split into several streamed chunks.")
    body = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}
    with httpx.stream("POST", f"{rig.url}/api/chat", json=body) as response:
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert len(lines) > 2
    assert all("message" in line for line in lines)
    assert all(not line["done"] for line in lines[:-1])
    last = lines[-1]
    assert last["done"] is True and last["done_reason"] == "stop"
    for key in ("prompt_eval_count", "eval_count", "total_duration", "eval_duration"):
        assert isinstance(last[key], int)
    assert "".join(line["message"]["content"] for line in lines).startswith("A reply")


def test_official_client_non_streaming_and_errors(rig: Rig, scripted: ScriptedBackend) -> None:
    client = ollama.Client(host=rig.url)
    scripted.push("hello", Fault("http500"))
    reply = client.chat(model="scripted", messages=[{"role": "user", "content": "x"}])
    assert reply.message.content == "hello" and reply.eval_count
    try:
        client.chat(model="scripted", messages=[{"role": "user", "content": "x"}])
    except ollama.ResponseError as exc:
        assert exc.status_code == 500
    else:
        raise AssertionError("HTTP 500 was not raised")
    try:
        client.chat(model="missing", messages=[{"role": "user", "content": "x"}])
    except ollama.ResponseError as exc:
        assert exc.status_code == 404 and "not found" in exc.error
    else:
        raise AssertionError("404 was not raised")


def test_request_log_records_what_tests_assert_on(rig: Rig, scripted: ScriptedBackend) -> None:
    scripted.push("ok")
    ollama.Client(host=rig.url).chat(
        model="scripted",
        messages=[{"role": "user", "content": "twelve chars"}],
        format={"title": "Thing", "type": "object"},
        options={"num_ctx": 2048},
    )
    [entry] = rig.chat_log()
    assert entry.model == "scripted" and entry.schema == "Thing"
    assert entry.options["num_ctx"] == 2048
    assert entry.prompt_chars == len("twelve chars")
    assert entry.end >= entry.start


class CountsAtTheEnd:
    """Answers like a real model: a reply's token counts arrive only after its last piece."""

    words = ("The ", "Moon ", "pulls ", "the ", "sea.")

    def answer(self, request: ChatRequest) -> Reply:
        reply = Reply()

        def pieces() -> Iterator[str]:
            yield from self.words
            reply.prompt_tokens, reply.eval_tokens = 35, len(self.words)

        reply.pieces = pieces()
        return reply


def test_a_reply_cut_at_num_predict_keeps_the_models_counts_and_its_text_is_logged() -> None:
    messages = [{"role": "user", "content": "hi"}]
    with Rig(CountsAtTheEnd(), models=("real",)) as rig:
        client = ollama.Client(host=rig.url)
        for stream in (True, False):
            answer = client.chat(
                model="real", messages=messages, options={"num_predict": 5}, stream=stream
            )
            last = list(answer)[-1] if stream else answer
            assert (last.prompt_eval_count, last.eval_count) == (35, 5)
        body = {"model": "real", "messages": messages, "max_tokens": 5}
        usage = httpx.post(f"{rig.url}/v1/chat/completions", json=body).json()["usage"]
        assert (usage["prompt_tokens"], usage["completion_tokens"]) == (35, 5)
        assert [e.reply for e in rig.chat_log()] == ["The Moon pulls the sea."] * 3


def test_auto_replies_satisfy_the_schema(rig: Rig) -> None:
    schema = {
        "title": "Plan",
        "type": "object",
        "properties": {
            "flag": {"type": "boolean"},
            "items": {"type": "array", "items": {"enum": [3, 4]}, "minItems": 2, "maxItems": 2},
            "name": {"type": "string", "maxLength": 10},
        },
    }
    reply = ollama.Client(host=rig.url).chat(
        model="scripted", messages=[{"role": "user", "content": "Topic: tides"}], format=schema
    )
    value = json.loads(reply.message.content)
    assert value["items"] == [3, 3] and isinstance(value["flag"], bool)
    assert len(value["name"]) <= 10
