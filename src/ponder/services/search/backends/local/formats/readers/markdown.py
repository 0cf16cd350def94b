"""Markdown, with the YAML (or TOML) front matter that static-site generators, Obsidian and
pandoc put at the top: its title, author(s) and date are kept, the rest of it dropped."""

from __future__ import annotations

import datetime
from typing import Any

from ponder.services.search.backends.local.formats.document import Document, clean_title
from ponder.services.search.backends.local.formats.registry import Reader, register
from ponder.services.search.backends.local.formats.text import decoded, heading_title

MAX_AUTHORS = 20


def read_markdown(data: bytes, name: str) -> Document:
    text = decoded(data)
    meta, body = _front_matter(text)
    title = clean_title(meta.get("title")) or heading_title(body) or name
    return Document(title, body, authors=_authors(meta), date=_date(meta.get("date")))


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's fields and the text after it; a text whose front matter does not
    parse is read whole (a stray ``---`` line is no reason to lose a note)."""
    if not text.startswith(("---", "+++")):
        return {}, text
    import frontmatter  # python-frontmatter: YAML through PyYAML's safe loader, or TOML

    try:
        post = frontmatter.loads(text)
    except Exception:  # a YAML or TOML error of any kind: the text is still the note
        return {}, text
    return (post.metadata if isinstance(post.metadata, dict) else {}), post.content


def _authors(meta: dict[str, Any]) -> list[str]:
    """``author`` or ``authors``: a name, names, or {name: …} entries. Only strings are
    taken: YAML aliases can make a small file a huge structure, never read whole here."""
    value = meta.get("authors", meta.get("author"))
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items[:MAX_AUTHORS]:
        if isinstance(item, dict):
            item = item.get("name")
        if isinstance(item, str) and (name := clean_title(item)):
            names.append(name)
    return names


def _date(value: Any) -> str | None:
    if isinstance(value, datetime.date):
        return value.isoformat()[:10]
    if isinstance(value, str):
        from ponder.services.search.backends.local.formats.markup import iso_date

        return iso_date(value)
    return None


register(
    Reader(
        "Markdown",
        (".md", ".markdown"),
        read_markdown,
        library="python-frontmatter (MIT) for the front matter, PyYAML's safe loader",
        keeps="the text, markup included; title, author(s) and date from the front matter, "
        "else the first `# ` heading as the title",
        drops="the front matter's other fields",
    )
)
