"""`ponder ui`: research in the browser, offline — ask, watch the run think, read the
checked report with each citation's evidence, and keep every run in a searchable history.

The server owns the runs (:mod:`.manager`), or, with ``PONDER_SERVER`` set, an engine does and
the page is its client (:mod:`.engine_runs`); pages are rendered on the server and work
without JavaScript (:mod:`.pages`), and the script in ``static/`` adds the live parts.
"""

from __future__ import annotations

import contextlib
import socket
import sys

from ponder.core.errors import ConfigurationError
from ponder.interfaces.ui.access import check_listening, users
from ponder.settings.environment import Environment, read_environment

DEFAULT_PORT = 8765


def address(host: str, port: int) -> str:
    where = f"[{host}]" if ":" in host else host
    return f"http://{where}:{port}/"


def serve(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> int:
    """Serve the UI until Ctrl-C; prints the address to open (with the token, if one is set)."""
    import uvicorn

    from ponder.interfaces.ui.app import create_app

    environment = read_environment()
    known = users(environment.secrets)
    check_listening(host, known)
    operator_token = next((t for t, u in known.items() if u.operator), None)
    url = address(host, port) + (f"?token={operator_token}" if operator_token else "")
    listening = _bind(host, port)
    print(f"ponder ui: open {url}  ({_who_holds_runs(environment)})", file=sys.stderr)
    app = create_app(host, port, environment)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    # uvicorn shuts down gracefully on Ctrl-C (the runs are kept, resumable), then re-raises it.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[listening])
    print("ponder ui: stopped.", file=sys.stderr)
    return 0


def _who_holds_runs(environment: Environment) -> str:
    """Said at start: where the runs live, so no one puts two of these behind one address
    when they cannot act as one."""
    server = environment.machine.server
    if server:
        return (
            f"runs are held by the engine at {server}: any number of these pages act as one; "
            "Ctrl-C stops this page, not the runs"
        )
    return (
        "one process holds its runs: Ctrl-C stops them, and Resume goes on; for several "
        "processes as one, serve the runs from an engine (PONDER_SERVER, docs/deploy.md)"
    )


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything starts: a busy port is a clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        raise ConfigurationError(
            f"Cannot listen on {host}:{port} ({exc.strerror}) — is another `ponder ui` running "
            "there? Choose another port with --port."
        ) from None
    listening.listen(128)
    listening.set_inheritable(True)
    return listening
