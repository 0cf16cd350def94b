"""Writing a ZIM archive with libzim: what the contract fixture searches, and what the test
rig writes from the Python docs (:mod:`ponder.testing.zim`). Each page an HTML article
with its title; a title index always, a full-text one unless ``fulltext`` is off."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from libzim.writer import Creator, Hint, Item, StringProvider


class _Page(Item):
    def __init__(self, path: str, title: str, markup: str) -> None:
        super().__init__()
        self._path, self._title, self._html = path, title, markup

    def get_path(self) -> str:
        return self._path

    def get_title(self) -> str:
        return self._title

    def get_mimetype(self) -> str:
        return "text/html"

    def get_contentprovider(self) -> StringProvider:
        return StringProvider(self._html)

    def get_hints(self) -> dict[Hint, int]:
        return {Hint.FRONT_ARTICLE: True}


def write_archive(
    out: Path,
    pages: Iterable[tuple[str, str, str]],
    *,
    fulltext: bool = True,
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """An archive at ``out`` of ``pages`` (path, title, HTML); the first is its main page."""
    with Creator(str(out)).config_indexing(fulltext, "eng") as creator:
        for name, value in (metadata or {}).items():
            creator.add_metadata(name, value)
        for number, (path, title, markup) in enumerate(pages):
            if number == 0:
                creator.set_mainpath(path)
            creator.add_item(_Page(path, title, markup))
    return out
