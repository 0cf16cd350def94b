"""The Watches page: each watched question with its next run, its runs, its latest change
report and its feed's address, and the form that adds one. Everything a user, a model or a
document wrote is escaped (the change report is Markdown with raw HTML off)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from html import escape
from typing import Any

from ponder.api.watches import Watch, WatchRun, every_label
from ponder.interfaces.html.markdown import markdown_engine
from ponder.interfaces.ui.pages import layout, sources_fieldsets

EVERY_CHOICES = ("1h", "6h", "12h", "1d", "1w")


@dataclass
class Row:
    watch: Watch
    runs: list[WatchRun]
    next_due: float
    changes: str | None  # the latest change report, Markdown


def watches_page(rows: list[Row], error: str | None, form: dict[str, Any]) -> str:
    said = f'<p class="error" role="alert">{escape(error)}</p>' if error else ""
    listed = "".join(_watch(row) for row in rows) or (
        "<p>No watched questions yet. A watch researches its question again on a schedule "
        "and says what changed since its last run, by source and by finding.</p>"
    )
    body = (
        "<h1>Watched questions</h1>\n"
        f"{said}{_form(form)}\n"
        f'<section aria-label="Your watches">{listed}</section>\n'
        '<p class="hint">Watches run when <code>ponder watch run</code> runs (from cron or a '
        "systemd timer), or here with <em>Run now</em>.</p>"
    )
    return layout("Watches", body, page="Watches")


def no_such_watch() -> str:
    body = '<h1>No such watch</h1><p class="error" role="alert">This watch does not exist '
    body += '(or is not yours).</p><p><a href="/watches">Back</a></p>'
    return layout("No such watch", body, page="Watches")


def _form(form: dict[str, Any]) -> str:
    """The question, how often, and where it searches (the ask form's choices)."""
    topic = escape(str(form.get("topic") or ""))
    every = str(form.get("every") or "1d")
    options = "".join(
        f'<option value="{c}"{" selected" if c == every else ""}>{c}</option>'
        for c in EVERY_CHOICES
    )
    return (
        '<form method="post" action="/watches" class="watch-form">'
        '<label for="topic">Question to watch</label>'
        f'<textarea id="topic" name="topic" rows="2" required>{topic}</textarea>'
        '<label for="every">Every</label>'
        f'<select id="every" name="every">{options}</select>'
        '<button type="submit">Watch</button>'
        f"{sources_fieldsets(form)}</form>"
    )


def _watch(row: Row) -> str:
    watch = row.watch
    latest = row.runs[-1] if row.runs else None
    state = "not run yet"
    if latest is not None:
        state = f"run {latest.number}: {latest.status}"
        if latest.status == "failed" and latest.error:
            state += f" ({latest.error})"
    due = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.next_due))
    feed = f"/feeds/{watch.id}/{watch.feed_key}.atom"
    report = ""
    if row.changes:
        # Its first line is the question, the watch's heading already.
        rendered = markdown_engine().render(row.changes.split("\n", 1)[-1])
        report = (
            "<details open><summary>What changed</summary>"
            f'<div class="report">{rendered}</div></details>'
        )
    actions = "".join(
        f'<form method="post" action="/watches/{escape(watch.id)}/{action}">'
        f'<button type="submit">{label}</button></form>'
        for action, label in (
            ("run", "Run now"),
            ("new-key", "New feed address"),
            ("remove", "Remove"),
        )
    )
    return (
        f'<article class="watch" id="watch-{escape(watch.id)}">'
        f"<h2>{escape(watch.question)}</h2>"
        f'<p class="meta">Every {escape(every_label(watch.every))} · next {due} · '
        f'<span class="status">{escape(state)}</span> · '
        f'<a href="{escape(feed)}" class="feed">Atom feed</a></p>'
        f'<div class="actions">{actions}</div>{report}</article>'
    )
