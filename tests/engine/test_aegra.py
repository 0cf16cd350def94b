"""ponder on Aegra: two replicas on one PostgreSQL and one Redis serve the repository's own
langgraph.json, with ponder's auth module and no adapter, and behave as one server through
langgraph-sdk: a run created on one is followed and read on the other, a stream dropped on
one resumes on the other with no gap or duplicate, a question asked
through one is answered through the other, a replica killed mid-run leaves its run to the
other, and every refusal of a caller holds, the run limit across both replicas.

Run by ``make test-engine`` (Aegra needs Python 3.12: its own virtual environment)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support import ask_once, write_corpus
from support.aegra import LEASE_SECONDS, Replica, aegra_replicas, engine_venv, redis_server
from support.langgraph_dev import TOKENS

from ponder.testing import Rig, ScriptedBackend

TOPIC = {"topic": "How do tides work?"}
LOOP = {"search": "local", "mode": "loop", "max_loops": 1}
RUNS = 2  # PONDER_CALLER_RUNS on both replicas


class Engine:
    def __init__(self, replicas: list[Replica], rig: Rig, database_url: str) -> None:
        self.a, self.b = replicas
        self.rig = rig
        self.database_url = database_url

    def script(self, delay: float = 0.0) -> ScriptedBackend:
        scripted = ScriptedBackend(delay=delay)
        self.rig.backend = scripted
        self.rig.wait_idle()
        self.rig.log.clear()
        return scripted

    def claimed_by(self, run_id: str) -> str | None:
        """Which worker of which replica holds the run's lease (Aegra's ``runs`` table)."""
        import psycopg

        with psycopg.connect(self.database_url) as conn:
            row = conn.execute(
                "SELECT claimed_by FROM runs WHERE run_id = %s", (run_id,)
            ).fetchone()
        return row[0] if row else None

    def replica_of(self, worker: str) -> Replica:
        """The replica whose process group holds the worker's pid (host-pid-worker-n)."""
        pid = int(worker.split("-worker-")[0].rsplit("-", 1)[1])
        for replica in (self.a, self.b):
            assert replica.process is not None
            if os.getpgid(pid) == replica.process.pid:
                return replica
        raise AssertionError(f"no replica runs {worker}")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    import pgserver

    folder = tmp_path_factory.mktemp("aegra")
    venv = engine_venv()
    docs = write_corpus(folder / "operator-docs")
    postgres = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="stop")
    try:
        with (
            redis_server(folder / "redis", venv) as redis_url,
            Rig(ScriptedBackend(), models=("scripted",)) as rig,
        ):
            env = {
                "OLLAMA_HOST": rig.url,
                "PONDER_MODEL": "scripted",
                "PONDER_DOCS": str(docs),
                "PONDER_CALLER_SEARCHES": "local",
                "PONDER_DATA_DIR": str(folder / "server-data"),
                "PONDER_CACHE_DIR": str(folder / "server-cache"),
                "PONDER_SERVER_TOKENS": ",".join(f"{u}={t}" for u, t in TOKENS.items()),
                "PONDER_CALLER_RUNS": str(RUNS),
            }
            url = str(postgres.get_uri())
            with aegra_replicas(folder, url, redis_url, env) as replicas:
                yield Engine(replicas, rig, url)
    finally:
        postgres.cleanup()


async def test_a_run_created_on_one_replica_is_followed_and_read_on_the_other(
    engine: Engine,
) -> None:
    engine.script()
    a, b = engine.a.client("alice"), engine.b.client("alice")
    thread = (await a.threads.create())["thread_id"]
    run = await a.runs.create(thread, "ponder", input=TOPIC, context=LOOP)
    done = await b.runs.join(thread, run["run_id"])
    assert str(done["report"]).startswith("# ") and done["sources"]
    assert (await b.runs.get(thread, run["run_id"]))["status"] == "success"
    state = await b.threads.get_state(thread)
    assert state["values"]["report"] == done["report"]


def status_of(exc: BaseException) -> int:
    assert isinstance(exc, httpx.HTTPStatusError), exc
    return exc.response.status_code


async def refused(work: Any, status: int = 403) -> str:
    """What the server says as it refuses, in its own words."""
    with pytest.raises(httpx.HTTPStatusError) as caught:
        await work
    assert status_of(caught.value) == status, caught.value.response.text
    return caught.value.response.text


async def test_every_refusal_of_a_caller_holds_on_aegra(engine: Engine) -> None:
    engine.script()
    a, b = engine.a.client("alice"), engine.b.client("alice")
    thread = (await a.threads.create())["thread_id"]
    await b.runs.wait(thread, "ponder", input=TOPIC, context=LOOP)
    before = (await a.threads.get_state(thread))["values"]
    # The thread's state is the graph's: written directly, or through a run's command.
    for as_node in (None, "reflect"):
        said = await refused(a.threads.update_state(thread, {"report": "forged"}, as_node=as_node))
        assert "cannot write a thread's state on this server" in said
    said = await refused(b.runs.create(thread, "ponder", command={
        "resume": "x", "update": {"report": "forged"}}))  # fmt: skip
    assert "not update" in said
    said = await refused(a.runs.create(thread, "ponder", command={"goto": "web_research"}))
    assert "not goto" in said
    said = await refused(a.runs.create(thread, "ponder", input=TOPIC,
                                       config={"recursion_limit": 5000}))  # fmt: skip
    assert "recursion_limit=5000 is more than a run here may take" in said
    # The operator's settings, as context or as configurable.
    for sent in ({"context": {"ollama_base_url": "http://127.0.0.1:9"}},
                 {"config": {"configurable": {"allow_private_urls": True}}},
                 {"context": {"mcp_servers": [{"name": "x", "command": ["true"]}]}}):  # fmt: skip
        said = await refused(b.runs.create(thread, "ponder", input=TOPIC, **sent))
        assert "is set by the server's operator" in said
    # The same through an assistant, made or changed to carry it.
    said = await refused(a.assistants.create("ponder", config={"recursion_limit": 5000}))
    assert "recursion_limit=5000" in said
    said = await refused(b.assistants.create("ponder", context={"allow_private_urls": True}))
    assert "allow_private_urls is set by the server's operator" in said
    mine = await a.assistants.create("ponder", context={"max_loops": 1})
    said = await refused(b.assistants.update(mine["assistant_id"], context={
        "ollama_base_url": "http://127.0.0.1:9"}))  # fmt: skip
    assert "ollama_base_url is set by the server's operator" in said
    assert (await a.threads.get_state(thread))["values"] == before
    assert len(await a.runs.list(thread)) == 1


async def test_aegra_s_protocol_commands_are_refused(engine: Engine) -> None:
    a = engine.a.client("alice")
    thread = (await a.threads.create())["thread_id"]
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            f"{engine.b.url}/threads/{thread}/commands",
            headers={"Authorization": f"Bearer {TOKENS['alice']}"},
            json={"id": 1, "method": "run.start",
                  "params": {"assistant_id": "ponder", "input": TOPIC,
                             "context": {"ollama_base_url": "http://127.0.0.1:9"}}},
        )  # fmt: skip
    assert answer.status_code == 403, answer.text
    assert "runs API" in answer.text
    assert await a.runs.list(thread) == []


async def test_another_user_sees_nothing_of_alice_s_on_either_replica(engine: Engine) -> None:
    engine.script()
    alice = engine.a.client("alice")
    thread = (await alice.threads.create(metadata={"ponder_topic": "tides"}))["thread_id"]
    run = await alice.runs.wait(thread, "ponder", input=TOPIC, context=LOOP)
    assert run["report"]
    [done] = await alice.runs.list(thread)
    for replica in (engine.a, engine.b):
        bob = replica.client("bob")
        assert thread not in [t["thread_id"] for t in await bob.threads.search(limit=100)]
        for work in (bob.threads.get(thread), bob.threads.get_state(thread),
                     bob.threads.get_history(thread), bob.runs.list(thread),
                     bob.runs.get(thread, done["run_id"]),
                     bob.runs.create(thread, "ponder", command={"resume": "x"}),
                     bob.threads.update(thread, metadata={"ponder_topic": "mine"}),
                     bob.threads.delete(thread)):  # fmt: skip
            try:
                seen = await work
            except httpx.HTTPStatusError as exc:
                assert status_of(exc) in (403, 404), exc.response.text
            else:
                assert not seen, seen
    assert (await alice.threads.get(thread))["metadata"]["ponder_topic"] == "tides"


async def test_a_question_asked_through_one_replica_is_answered_through_the_other(
    engine: Engine,
) -> None:
    ask_once(engine.script())
    a, b = engine.a.client("alice"), engine.b.client("alice")
    thread = (await a.threads.create())["thread_id"]
    deep = {**LOOP, "mode": "deep", "allow_clarification": True}
    paused = await a.runs.wait(thread, "ponder", input=TOPIC, context=deep)
    assert "__interrupt__" in paused, paused
    assert (await b.threads.get(thread))["status"] == "interrupted"
    done = await b.runs.wait(thread, "ponder", command={"resume": "The Atlantic coast"})
    assert str(done["report"]).startswith("# ")
    assert "The Atlantic coast" in str(engine.rig.chat_log())


async def test_the_run_limit_holds_across_replicas_and_cancel_frees_a_place(
    engine: Engine,
) -> None:
    engine.script(delay=2.0)  # each model call takes 2 s: the runs stay running
    a, b = engine.a.client("alice"), engine.b.client("alice")
    live = []
    for client in (a, b):  # one on each replica
        thread = (await client.threads.create())["thread_id"]
        live.append((thread, (await client.runs.create(thread, "ponder", input=TOPIC,
                                                       context=LOOP))["run_id"]))  # fmt: skip
    spare = (await a.threads.create())["thread_id"]
    for client in (a, b):
        said = await refused(client.runs.create(spare, "ponder", input=TOPIC, context=LOOP), 429)
        assert f"PONDER_CALLER_RUNS={RUNS}" in said
    # bob is not held to alice's runs.
    bob = engine.b.client("bob")
    theirs = (await bob.threads.create())["thread_id"]
    bobs = await bob.runs.create(theirs, "ponder", input=TOPIC, context=LOOP)
    await bob.runs.cancel(theirs, bobs["run_id"], wait=True)
    # Cancel through the other replica than the one the run was created on.
    thread, run_id = live.pop(0)
    await b.runs.cancel(thread, run_id, wait=True)
    assert (await a.runs.get(thread, run_id))["status"] not in ("pending", "running")
    fresh = await a.runs.create(spare, "ponder", input=TOPIC, context=LOOP)
    for thread, run_id in [*live, (spare, fresh["run_id"])]:
        await a.runs.cancel(thread, run_id, wait=True)


async def test_ponder_runs_lists_a_finished_run_on_aegra_as_done(engine: Engine) -> None:
    from ponder.api.engine import remote_runs
    from ponder.api.remote import stream_remote

    engine.script()
    thread_id = None
    async for item in stream_remote(engine.a.url, "How do tides work?",
                                    token=TOKENS["alice"], **LOOP):  # fmt: skip
        if getattr(item, "kind", None) == "remote_run":
            thread_id = item.data["thread_id"]  # type: ignore[union-attr]
    listed = {r.thread_id: r.status for r in await remote_runs(engine.b.url, TOKENS["alice"])}
    runs = await engine.b.client("alice").runs.list(str(thread_id))
    assert listed[str(thread_id)] == "done", [
        (r["status"], r["created_at"], r["input"]) for r in runs
    ]


async def test_a_stream_dropped_on_one_replica_resumes_on_the_other_with_no_gap(
    engine: Engine,
) -> None:
    engine.script(delay=0.3)
    a, b = engine.a.client("alice"), engine.b.client("alice")
    thread = (await a.threads.create())["thread_id"]
    run = await a.runs.create(thread, "ponder", input=TOPIC, context=LOOP,
                              stream_mode=["custom"], stream_resumable=True)  # fmt: skip
    first: list[Any] = []
    async for part in a.runs.join_stream(thread, run["run_id"], stream_mode=["custom"]):
        first.append(part)
        if len(first) == 3:
            break  # the caller's connection to A drops, mid-run
    assert (await b.runs.get(thread, run["run_id"]))["status"] == "running"
    rest = [part async for part in b.runs.join_stream(
        thread, run["run_id"], stream_mode=["custom"], last_event_id=first[-1].id)]  # fmt: skip
    whole = [part async for part in b.runs.join_stream(
        thread, run["run_id"], stream_mode=["custom"], last_event_id="-1")]  # fmt: skip

    def seen(parts: list[Any]) -> list[tuple[str, str | None, Any]]:
        return [(p.event, p.id, p.data) for p in parts]

    assert rest and rest[-1].event == "end"
    assert seen(first + rest) == seen(whole)  # no gap, no duplicate
    assert len({p.id for p in whole}) == len(whole) > 10


async def test_a_replica_killed_mid_run_leaves_its_run_to_the_other(engine: Engine) -> None:
    """Last in the module: it kills a replica (and starts it again)."""
    engine.script(delay=1.0)
    a = engine.a.client("alice")
    thread = (await a.threads.create())["thread_id"]
    run_id = (await a.runs.create(thread, "ponder", input=TOPIC, context=LOOP))["run_id"]
    # Under way, on one of the replicas, past its first model call's checkpoint.
    while len(await a.threads.get_history(thread, limit=10)) < 4:
        await asyncio.sleep(0.1)
    first = engine.rig.chat_log()[0]
    worker = engine.claimed_by(run_id)
    assert worker is not None
    doomed = engine.replica_of(worker)
    other = engine.b if doomed is engine.a else engine.a
    doomed.kill()
    killed = time.monotonic()
    taker = None
    while taker is None and time.monotonic() - killed < 10 * LEASE_SECONDS:
        claimed = engine.claimed_by(run_id)
        if claimed and claimed != worker:
            taker = engine.replica_of(claimed)
        await asyncio.sleep(0.2)
    assert taker is other, f"no replica took the run over ({engine.claimed_by(run_id)})"
    done = await other.client("alice").runs.join(thread, run_id)
    took = time.monotonic() - killed
    assert str(done["report"]).startswith("# ") and done["sources"], done
    assert (await other.client("alice").runs.get(thread, run_id))["status"] == "success"
    # Taken up from its last checkpoint, not started over: the first call was not made again.
    asked = [(e.schema, e.messages) for e in engine.rig.chat_log()]
    assert asked.count((first.schema, first.messages)) == 1, [
        e.schema for e in engine.rig.chat_log()
    ]
    print(f"\ntaken over and finished {took:.1f} s after the kill (lease {LEASE_SECONDS} s)")
    doomed.start()
