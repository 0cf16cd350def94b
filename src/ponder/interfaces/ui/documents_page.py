"""The Documents page, rendered on the server: the folders a run may read, the operator's
archives and libraries, and a person's own uploads. Everything that came from a user or a
file goes through ``html.escape``."""

from __future__ import annotations

from html import escape
from typing import Any

from ponder.interfaces.ui.pages import layout


def documents_page(
    folders: list[dict[str, Any]],
    may_add: bool,
    error: str | None,
    uploads: dict[str, Any] | None = None,
    shelf: dict[str, Any] | None = None,
) -> str:
    rows = "".join(
        f"<tr><th scope=row><code>{escape(f['path'])}</code></th><td>{f['files']}</td>"
        f"<td>{f['passages']}</td><td>{f['embedded']}</td><td>{f['stale']}</td>"
        f"<td>{len(f.get('skipped') or [])}</td>"
        f'<td><button type="button" class="index" data-path="{escape(f["path"])}">'
        "Index</button></td></tr>"
        for f in folders
    )
    table = (
        '<table class="folders"><caption>Folders the research may read</caption>'
        "<thead><tr><th scope=col>Folder</th><th scope=col>Files</th><th scope=col>Passages</th>"
        "<th scope=col>Embedded</th><th scope=col>Changed since</th><th scope=col>Skipped</th>"
        f"<th scope=col></th></tr></thead><tbody>{rows}</tbody></table>"
        + "".join(_left_out(f) for f in folders)
        if folders
        else '<p class="hint">No document folders are set (PONDER_DOCS or PONDER_DOCS_ROOTS).</p>'
    )
    add = (
        '<form method="post" action="/documents" class="add-folder" id="add-folder">'
        '<label for="path">Index a folder</label>'
        '<input id="path" name="path" required placeholder="/home/you/notes">'
        '<button type="submit">Index</button></form>'
        if may_add
        else ""
    )
    body = (
        "<h1>Documents</h1>\n"
        + (f'<p class="error" role="alert" id="error">{escape(error)}</p>' if error else "")
        + (_uploads(uploads) if uploads is not None else "")
        + '<div class="indexing"><progress id="index-progress" max="1" value="0" hidden></progress>'
        '<p id="index-status" role="status" aria-live="polite"></p></div>'
        + "<h2>Folders</h2>"
        + table
        + add
        + (_shelf(shelf) if shelf else "")
    )
    return layout("Documents", body, page="Documents")


def _shelf(shelf: dict[str, Any]) -> str:
    """The operator's ZIM archives and reference libraries, each with what it holds."""
    parts = []
    for key, title, empty in (
        ("archives", "ZIM archives", "No ZIM archives are set (PONDER_ZIM)."),
        ("libraries", "Reference libraries", "No reference library is set (PONDER_LIBRARY)."),
    ):
        items = "".join(
            f"<li><code>{escape(item['name'])}</code>: {escape(item['said'])}</li>"
            for item in shelf[key]
        )
        listed = f'<ul class="{key}">{items}</ul>' if items else f'<p class="hint">{empty}</p>'
        parts.append(f"<h2>{title}</h2>{listed}")
    return "".join(parts)


def _uploads(uploads: dict[str, Any]) -> str:
    """The user's own files: the upload form, each file with its size, whether it is
    indexed and a Delete button, and the limits."""
    head = "<section class=uploads aria-labelledby=uploads-title>"
    head += "<h2 id=uploads-title>Your uploads</h2>"
    if uploads["off"]:
        return f'{head}<p class="hint">{escape(uploads["off"])}</p></section>'
    rows = "".join(
        f"<tr><th scope=row>{escape(f['name'])}</th><td>{escape(f['size'])}</td>"
        f"<td>{escape(f['state'])}</td><td>"
        '<form method="post" action="/documents/uploads/delete" class="inline delete-upload"'
        f' data-confirm="Delete {escape(f["name"])} from your uploads?">'
        f'<input type="hidden" name="name" value="{escape(f["name"])}">'
        f'<button type="submit" class="quiet" aria-label="Delete {escape(f["name"])}">Delete'
        "</button></form></td></tr>"
        for f in uploads["files"]
    )
    table = (
        f'<table class="uploads"><caption>{escape(uploads["used"])}</caption><thead><tr>'
        "<th scope=col>File</th><th scope=col>Size</th><th scope=col>State</th>"
        f"<th scope=col></th></tr></thead><tbody>{rows}</tbody></table>"
        if rows
        else '<p class="hint">No files yet.</p>'
    )
    unindexed = any(f["document"] and f["state"] != "indexed" for f in uploads["files"])
    reindex = (
        '<form method="post" action="/documents/uploads/index" class="inline" id="index-uploads">'
        '<button type="submit" class="quiet">Index them now</button></form>'
        if unindexed
        else ""
    )
    return (
        f"{head}<p class=hint>Only you can see these, and only your runs search them (tick "
        f"Your uploads when you ask). {escape(uploads['limits'])} ponder reads "
        f"{escape(uploads['kinds'])}; a reference library (BibTeX .bib or CSL .json) cites "
        "the files you upload beside it as its papers"
        + ("; a Kiwix ZIM archive (.zim) is searched as your own." if uploads["archives"] else ".")
        + "</p>"
        '<form method="post" action="/documents/uploads" enctype="multipart/form-data" '
        'class="upload" id="upload"><label for="files">Add files</label>'
        f'<input id="files" name="file" type="file" multiple required '
        f'accept="{escape(uploads["accept"])}">'
        '<button type="submit">Upload</button></form>'
        '<p id="upload-status" role="status" aria-live="polite"></p>'
        f"{table}{reindex}</section>"
    )


def _left_out(folder: dict[str, Any]) -> str:
    """What indexing a folder could not read, each file with why, and the unknown types."""
    skipped = folder.get("skipped") or []
    unknown = folder.get("unknown") or ""
    if not skipped and not unknown:
        return ""
    items = "".join(
        f"<li><code>{escape(name)}</code>: {escape(why)}</li>" for name, why in skipped[:200]
    )
    more = f"<li>…and {len(skipped) - 200} more</li>" if len(skipped) > 200 else ""
    kinds = f'<p class="hint">Not read, of unknown types: {escape(unknown)}.</p>' if unknown else ""
    summary = f"{len(skipped)} file(s) skipped in <code>{escape(folder['path'])}</code>"
    listed = f"<details class=skipped><summary>{summary}</summary><ul>{items}{more}</ul></details>"
    return (listed if skipped else "") + kinds
