"""The UI's pages, rendered on the server: each is whole without JavaScript (the script
only adds what is live — progress, the model list, the indexing bar). Everything that came
from a user, a model or a web page goes through ``html.escape``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from html import escape
from typing import Any

from ponder.api.history import Turn
from ponder.core.result import Report
from ponder.interfaces.html import report_body, turn_anchors
from ponder.interfaces.ui import threads
from ponder.settings.choices import Mode

MODES: dict[Mode, str] = {
    "auto": "Auto — a focused question takes the loop, a broad topic the deep pipeline",
    "loop": "Loop — search, read, reflect, repeat",
    "deep": "Deep — a brief, a supervisor and researchers side by side",
}
# Shown while the page's stream of a run is down (app.js): a killed server, a lost network.
CONNECTION_LOST = (
    '<p class="error" role="status" id="connection" hidden>The connection to ponder was lost '
    "— trying again. The run goes on if the server still runs.</p>"
)
# What a Delete button asks first (app.js): a deleted run cannot be brought back.
DELETE_RUN = "Delete this run? Its report, sources and history are removed for good."
STATUS_WORDS = {
    "running": "running",
    "waiting": "waiting for your answer",
    "done": "done",
    "interrupted": "interrupted",
    "failed": "failed",
}


def layout(title: str, body: str, *, page: str = "") -> str:
    nav = "".join(
        f'<a href="{href}"{" aria-current=page" if page == name else ""}>{name}</a>'
        for name, href in (
            ("Ask", "/"),
            ("History", "/runs"),
            ("Watches", "/watches"),
            ("Documents", "/documents"),
        )
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} · ponder</title>\n"
        '<link rel="icon" href="data:,">\n'
        '<link rel="stylesheet" href="/report.css">\n'
        '<link rel="stylesheet" href="/static/style.css">\n'
        '<script type="module" src="/static/app.js"></script>\n</head>\n<body>\n'
        '<a class="skip" href="#main">Skip to content</a>\n'
        f'<header class="bar"><a class="brand" href="/">ponder</a>'
        f'<nav aria-label="Main">{nav}</nav></header>\n'
        f'<main id="main">\n{body}\n</main>\n</body>\n</html>\n'
    )


def ask_page(form: dict[str, Any], error: str | None, recent: list[Any]) -> str:
    body = (
        "<h1>Ask</h1>\n"
        + (f'<p class="error" role="alert">{escape(error)}</p>\n' if error else "")
        + ask_form(form)
        + "<h2>Recent runs</h2>\n"
        + run_list(recent[:8], empty="No runs yet: ask something above.")
    )
    return layout("Ask", body, page="Ask")


def ask_form(form: dict[str, Any]) -> str:
    topic = escape(form.get("topic") or "")
    modes = "".join(
        f'<label class="choice"><input type="radio" name="mode" value="{mode}"'
        f"{' checked' if form['mode'] == mode else ''}> {escape(words)}</label>"
        for mode, words in MODES.items()
    )
    model = escape(form["model"])
    return f"""<form method="post" action="/runs" class="ask" id="ask">
<label for="topic">Question</label>
<textarea id="topic" name="topic" rows="3" required
 placeholder="What do you want to know?">{topic}</textarea>
<button type="submit">Research</button>
<h2 class="options">Options</h2>
<fieldset><legend>Depth</legend>{modes}
<label class="rounds">Rounds <input type="number" name="max_loops" min="1"
 max="{int(form["most_rounds"])}" value="{int(form["max_loops"])}"></label></fieldset>
<div class="model"><label for="model">Model</label>
<select id="model" name="model"><option value="{model}" selected>{model}</option></select>
<span id="model-health" class="health" role="status" data-model-server="{escape(form["server"])}">
</span></div>
{sources_fieldsets(form)}
</form>
"""


def sources_fieldsets(form: dict[str, Any]) -> str:
    """Where a run searches: its backends to tick and its document folders (the ask form's
    and a watch's)."""
    searches = "".join(_search_choice(name, form) for name in form["searches"])
    docs = "".join(
        f'<label class="choice"><input type="checkbox" name="docs" value="{escape(root)}"'
        f"{' checked' if root in form['docs'] else ''}> <code>{escape(root)}</code></label>"
        for root in form["roots"]
    )
    if form.get("held"):
        docs += (
            '<label class="choice"><input type="checkbox" name="uploads" value="1"'
            f"{' checked' if form['uploads'] else ''}> Your uploads ({int(form['held'])} "
            "files)</label>"
        )
    documents = (
        f"<fieldset><legend>Your documents</legend>{docs}</fieldset>"
        if docs
        else '<p class="hint">No document folders yet — see <a href="/documents">Documents</a>.</p>'
    )
    return f"<fieldset><legend>Search</legend>{searches}</fieldset>\n{documents}"


def _search_choice(name: str, form: dict[str, Any]) -> str:
    """A search backend to tick; one that cannot work here (no key…) is shown with why."""
    why = form.get("unusable", {}).get(name)
    if why:
        return (
            f'<label class="choice unusable"><input type="checkbox" name="search" '
            f'value="{escape(name)}" disabled> {escape(name)} '
            f'<span class="hint">— cannot work here: {escape(why)}</span></label>'
        )
    checked = " checked" if name in form["search"] else ""
    return (
        f'<label class="choice"><input type="checkbox" name="search" value="{escape(name)}"'
        f"{checked}> {escape(name)}</label>"
    )


def run_list(records: list[Any], *, empty: str, deletable: bool = False) -> str:
    if not records:
        return f'<p class="hint">{escape(empty)}</p>\n'
    items = []
    for record in records:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.created))
        delete = (
            f'<form method="post" action="/runs/{escape(record.thread_id)}/delete" class="inline"'
            f' data-confirm="{escape(DELETE_RUN)}">'
            f'<button type="submit" class="quiet" aria-label="Delete run: {escape(record.topic)}">'
            "Delete</button></form>"
            if deletable
            else ""
        )
        items.append(
            f'<li><a href="/runs/{escape(record.thread_id)}">{escape(record.topic)}</a> '
            f"{_turns(record)}"
            f'<span class="status status-{escape(record.status)}">{escape(record.status)}</span> '
            f'<span class="when">{when}</span>{delete}</li>'
        )
    return '<ul class="runs">\n' + "\n".join(items) + "\n</ul>\n"


def _turns(record: Any) -> str:
    """A thread's follow-ups in its history entry (its title: the first question)."""
    if record.turns < 2:
        return ""
    then = " · ".join(escape(_short(question)) for question in record.questions[1:])
    return (
        f'<span class="turns">{record.turns} questions</span> '
        f'<span class="follow-ups">then: {then}</span> '
    )


def _short(text: str, most: int = 100) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def history_page(records: list[Any], query: str) -> str:
    body = (
        "<h1>History</h1>\n"
        '<form method="get" action="/runs" class="search" role="search">'
        '<label for="q">Search the runs</label>'
        f'<input id="q" name="q" type="search" value="{escape(query)}">'
        '<button type="submit">Search</button></form>\n'
        + run_list(records, empty="No run matches." if query else "No runs yet.", deletable=True)
    )
    return layout("History", body, page="History")


def run_page(
    record: Any,
    turns: Sequence[Turn],
    live: bool,
    began: tuple[int, int] = (0, 1),
    seen: int = 0,
    follow_ups: bool = True,
) -> str:
    """A run's page: its turns (threads.py), the latest with the live view; ``began``:
    the seq after which the log's latest turn begins, and its number (the live view
    replays that turn's events only); ``seen``: the last event of the log this page
    already shows (run.js replays the log for the trail, and leaves what is drawn here);
    ``follow_ups``: whether a finished run offers one (not yet on an engine's runs)."""
    thread = escape(record.thread_id)
    status = "running" if live else record.status
    current = turns[-1] if turns else None
    report = current.report if current else None
    message = (
        f'<p class="error" role="alert" id="message">{escape(record.message)}</p>'
        if record.message and status in ("failed", "interrupted")
        else '<p class="error" role="alert" id="message" hidden></p>'
    )
    question = record.message if status == "waiting" else ""
    shown = report is not None and status == "done"
    written = report_body(report, turn_anchors(len(turns)), copy=True) if report and shown else ""
    word = STATUS_WORDS.get(status, status)
    asking = "" if question else " hidden"
    return layout(
        record.topic,
        f"""<div class="run" data-run="{thread}" data-live="{int(live)}" \
data-after="{began[0]}" data-turn="{began[1]}" data-seen="{int(seen)}">
<h1 id="topic">{escape(record.topic)}</h1>
<p class="meta"><span id="status" class="status status-{escape(status)}">{escape(word)}</span>
 · run <code>{thread}</code>{_cost(report if status == "done" else None)}</p>
{CONNECTION_LOST}
{message}
{_controls(thread, status, len(turns))}
<form method="post" action="/runs/{thread}/answer" id="clarify" class="clarify"{asking}>
<label for="answer" id="question">{escape(question or "")}</label>
<textarea id="answer" name="answer" rows="2" required></textarea>
<button type="submit">Answer and continue</button></form>
{threads.earlier_turns(thread, turns)}
<section class="turn current" id="turn-{len(turns)}" data-turn="{len(turns)}">
{threads.asked(thread, current, len(turns), exports=status == "done") if current else ""}
<details id="live" class="live"{" open" if status != "done" else ""}>
<summary>How it was researched</summary>
<p id="headline" role="status" aria-live="polite"></p>
<div id="researchers" class="researchers"></div>
<ol id="timeline" class="timeline"></ol>
<button type="button" id="latest" class="latest quiet" hidden>Jump to latest</button>
</details>
{_report_note(report if status == "done" else None)}
<section id="draft" class="draft" aria-label="The report, as it is written" hidden>
<p class="hint">Being written — the checked report takes its place.</p>
<div id="draft-text" class="report"></div></section>
<article id="report" class="report" data-turn="{len(turns)}">{written}</article>
</section>
{_follow_up(thread, shown=status == "done") if follow_ups else ""}
</div>""",
    )


def _cost(report: Report | None) -> str:
    """What the run cost, in the words and figures of the live view's counters (run.js)."""
    if report is None:
        return '<span id="cost"></span>'
    stats = report.stats
    tokens = stats.prompt_tokens + stats.completion_tokens
    return (
        f'<span id="cost"> · {stats.wall_seconds:.0f} s · {stats.llm_calls} model calls · '
        f"{tokens:,} tokens · {stats.rounds} round(s) · {len(report.sources)} source(s) read"
        "</span>"
    )


def _report_note(report: Report | None) -> str:
    """Above the report: why it is not (all) the model's text, when it is not."""
    stats = report.stats if report is not None else None
    if stats is not None and stats.extractive_report:
        text = "The model's text was unusable: this report is built from the sources' passages."
    elif stats is not None and (stats.texts_cut or stats.sections_from_notes):
        text = "Part of the model's text was unusable: it was completed from the findings."
    else:
        return '<p id="report-note" class="note" role="status" hidden></p>'
    return f'<p id="report-note" class="note" role="status">{escape(text)}</p>'


def _controls(thread: str, status: str, turns: int = 1) -> str:
    buttons = [
        _button(thread, "stop", "Stop", shown=status == "running"),
        _button(thread, "resume", "Resume", shown=status in ("interrupted", "failed")),
        _button(thread, "delete", "Delete", quiet=True, confirm=DELETE_RUN),
    ]
    label = "Export all questions" if turns > 1 else "Export"
    menu = threads.export_menu(thread, label, shown=status == "done", element="exports")
    return f'<div class="controls">{"".join(buttons)}{menu}</div>'


def _button(
    thread: str,
    action: str,
    label: str,
    *,
    quiet: bool = False,
    shown: bool = True,
    confirm: str = "",
) -> str:
    style = ' class="quiet"' if quiet else ""
    hidden = "" if shown else " hidden"
    asks = f' data-confirm="{escape(confirm)}"' if confirm else ""
    return (
        f'<form method="post" action="/runs/{thread}/{action}" class="inline" '
        f'data-action="{action}"{asks}{hidden}><button type="submit"{style}>{label}</button></form>'
    )


def _follow_up(thread: str, *, shown: bool) -> str:
    return (
        f'<form method="post" action="/runs/{thread}/follow-up" class="follow-up" id="follow"'
        f"{'' if shown else ' hidden'}>"
        '<label for="follow-up">Ask a follow-up (it builds on what this run found)</label>'
        '<textarea id="follow-up" name="topic" rows="2" required></textarea>'
        '<button type="submit">Ask</button></form>'
    )


def message_page(title: str, text: str, status_link: str = "/") -> str:
    body = f'<h1>{escape(title)}</h1><p class="error" role="alert">{escape(text)}</p>'
    return layout(title, body + f'<p><a href="{escape(status_link)}">Back</a></p>')
