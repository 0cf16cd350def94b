"""Things said once in the code, and held to it: the kinds of progress events, the tokens'
parsing (the UI and MCP need no LangGraph SDK), the flags messages name."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ponder.core.events import EVENT_KINDS
from ponder.nodes.context import NodeContext
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment


def test_a_node_emits_only_the_event_kinds_core_declares() -> None:
    ctx = NodeContext("generate_query", Configuration(), read_environment())
    ctx.emit("aspects", aspects=["tides"])  # declared: a no-op outside a run
    with pytest.raises(KeyError, match="not an EventKind"):
        ctx.emit("aspect", aspects=["tides"])
    assert {"aspects", "uncovered", "warning", "token"} <= EVENT_KINDS


def test_the_web_page_and_the_mcp_server_load_no_langgraph_sdk() -> None:
    program = (
        "import sys, ponder.interfaces.ui.app, ponder.interfaces.mcp.http\n"
        "print(sorted(m for m in sys.modules if m.startswith('langgraph_sdk')))"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_a_message_names_the_flag_the_field_declares() -> None:
    from ponder.interfaces.cli.flags import RUN_FLAGS
    from ponder.interfaces.cli.research import FLAGS

    assert FLAGS["max_loops"] == "--loops" and set(FLAGS) == set(RUN_FLAGS)
