"""A run's turns (its question, then each follow-up) with their reports, and its trail as
JSON-ready data: what a local run's history (:mod:`ponder.api.history`) and an engine's
client (:mod:`ponder.api.engine`) both give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ponder.core.result import Report

if TYPE_CHECKING:
    from ponder.services.storage.runs import RunRecord


@dataclass(frozen=True)
class Turn:
    """One question asked on a run (the first, or a follow-up) and its report."""

    number: int  # from 1
    question: str
    started: float
    ended: float | None
    report: Report | None  # None: not finished (running, waiting, stopped or failed)


def trail_data(record: RunRecord, turns: list[Turn], values: dict[str, Any]) -> dict[str, Any]:
    """A run's trail from its record, its ``turns`` and the state ``values`` of what it read
    (this machine's run, or an engine's: :meth:`ponder.api.engine.Engine.trail`)."""
    turned = [
        {
            "turn": turn.number,
            "question": turn.question,
            "started": turn.started,
            "ended": turn.ended,
            "report": turn.report.model_dump() if turn.report is not None else None,
        }
        for turn in turns
    ]
    return {
        "thread_id": record.thread_id,
        "topic": record.topic,
        "status": record.status,
        "created": record.created,
        "updated": record.updated,
        "config": record.config,
        "queries": list(values.get("queries_run") or []),
        "sources": [dict(source) for source in values.get("sources") or []],
        "report": turned[-1]["report"],
        "turns": turned,
    }
