"""The cited sources as CSL JSON, the items citeproc (pandoc, Zotero, Quarto) formats in
any citation style: ``id`` (the same key as the BibTeX entry's), ``type`` (``webpage`` or
``document``), ``title``, ``author`` (``family`` and ``given``, or an organisation's
``literal``), ``issued`` as ``date-parts``, ``URL``, ``DOI``, and a web page's host as
``container-title``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ponder.core.result import Report
from ponder.interfaces.exports.bibliography import Name, Record, records


def export_bytes(reports: Sequence[Report]) -> bytes:
    items = [item(found) for found in records(reports)]
    return (json.dumps(items, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def item(found: Record) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": found.key,
        "citation-key": found.key,
        "type": "webpage" if found.kind == "web" else "document",
        "title": found.title,
    }
    if found.authors:
        data["author"] = [_name(name) for name in found.authors]
    if found.date:
        data["issued"] = {"date-parts": [list(found.date)]}
    if found.site:
        data["container-title"] = found.site
    if found.url:
        data["URL"] = found.url
    if found.doi:
        data["DOI"] = found.doi
    if found.path:
        data["note"] = f"Document: {found.path}"
    return data


def _name(name: Name) -> dict[str, str]:
    if name.literal:
        return {"literal": name.literal}
    return {"family": name.family, **({"given": name.given} if name.given else {})}
