"""The rig's fault engine: what each injected fault does, in whichever wire format.

A fault that is a bad answer (invalid JSON, garbage, too late) is sent as that answer; the
others are what a server does when it fails: an HTTP error, a stream that breaks with an
error in it, a connection closed without a word.
"""

from __future__ import annotations

import time

from ponder.testing.replies import Fault, Reply
from ponder.testing.wire import Wire, hang_up

BAD_ANSWERS = {
    "invalid_json": '{"unfinished": [1, 2,',
    "garbage": "lorem ipsum <<<>>> ]]] not an answer",
}
SLOW_SECONDS = 30.0  # how long a ``slow`` fault without a delay sleeps before it answers
ERROR_STATUS = {"http500": 500, "not_found": 404}


def inject(fault: Fault, wire: Wire) -> None:
    """Answer the request with ``fault``."""
    kind = fault.kind
    if kind in BAD_ANSWERS:
        wire.reply(Reply(BAD_ANSWERS[kind]))
    elif kind == "slow":
        time.sleep(fault.delay or SLOW_SECONDS)
        wire.reply(Reply("too late"))
    elif kind == "drop":
        hang_up(wire.http)
    elif kind == "stream_error":
        wire.stream_error()
    else:
        wire.error(ERROR_STATUS[kind])
