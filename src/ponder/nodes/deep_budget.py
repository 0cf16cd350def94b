"""What a turn of the deep pipeline has spent, for its budgets: the loop's part before the
hand-off included, and seconds by the wall clock once researchers run side by side (the
sum of their nodes' seconds would count a shared model server's time once per researcher).
"""

from __future__ import annotations

import dataclasses
import time

from ponder.core.deep_state import DeepState
from ponder.core.stats import merge_stats
from ponder.nodes.context import NodeContext
from ponder.services.research.budget import Spent


def turn_spent(state: DeepState, ctx: NodeContext | None = None) -> Spent:
    """This turn's spending, with what the node of ``ctx`` spent so far: tokens as the
    model server counted them; rounds, every search round (the loop's and each
    researcher's); seconds, those before the supervisor's first round, then the wall
    clock's since."""
    stats = merge_stats(state.get("spent_before"), state.get("stats"))
    if ctx is not None:
        stats = merge_stats(stats, ctx.stats(0.0))
    planned = (
        1 if "generate_query" in (state.get("spent_before") or {}).get("node_seconds", {}) else 0
    )
    starts = planned + len(state.get("researcher_results", []))
    spent = Spent.of(stats, int(stats.get("rounds") or 0), starts)
    started = state.get("supervisor_started")
    if not started:
        return spent
    before = float(state.get("seconds_before") or 0.0)
    return dataclasses.replace(spent, seconds=before + max(time.time() - started, 0.0))
