"""How many runs a caller has pending or running on a server that serves ponder's graph,
counted by the engine itself (LangGraph Server or Aegra) for :mod:`langgraph_auth`.

The auth handler asks the server's own API (``PONDER_SERVER_SELF_URL``) through
langgraph-sdk, as the caller, with the caller's own token: the engine answers with that
caller's threads alone, and its runs are the ones it keeps, whichever replica took them and
whether it holds them in memory or in PostgreSQL. No engine's internals are read, and both
engines answer the same calls (a thread search by status, a thread's runs by status).

What remains racy: the count is read before the engine stores the new run, with no lock,
so two runs of one caller created in the same instant (on one replica or two) may both pass
it, and a run that ends during the count may still be counted once. The limit holds for
runs created one after another, across every replica, which is what it is for: one caller
cannot fill the queue.
"""

from __future__ import annotations

from langgraph_sdk import get_client
from langgraph_sdk.schema import RunStatus

from ponder.core.errors import ConfigurationError
from ponder.settings.environment import Environment
from ponder.settings.users import server_tokens

SELF_URL_ENV = "PONDER_SERVER_SELF_URL"
LIVE: tuple[RunStatus, ...] = ("pending", "running")  # a run holding one of its caller's places


def self_url(environment: Environment) -> str:
    """The server's own address, as its operator set it."""
    url = (environment.machine.server_self_url or "").strip()
    if not url.startswith(("http://", "https://")):
        raise ConfigurationError(
            f"{SELF_URL_ENV} is not set to this server's own address (e.g. "
            "http://127.0.0.1:8000, the port it listens on): ponder's auth counts each "
            "caller's runs there. Set it in the server's environment and restart it."
        )
    return url.rstrip("/")


async def live_runs(user: str, limit: int, environment: Environment) -> int:
    """``user``'s pending and running runs, up to ``limit``: each lies on one of the
    user's busy threads, which the engine lists to that user alone."""
    token = server_tokens(environment.secret("PONDER_SERVER_TOKENS") or "").get(user)
    if token is None:  # authenticated a moment ago, so its token was just removed
        raise ConfigurationError(f"{user!r} has no token in PONDER_SERVER_TOKENS any more.")
    headers = {"Authorization": f"Bearer {token}"}
    async with get_client(url=self_url(environment), headers=headers, timeout=10.0) as server:
        busy = await server.threads.search(status="busy", limit=limit)
        live = 0
        for thread in busy:
            for status in LIVE:
                live += len(await server.runs.list(thread["thread_id"], status=status, limit=limit))
            if live >= limit:
                break
        return live
