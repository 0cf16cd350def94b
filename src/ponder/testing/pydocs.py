"""The Python 3.11 documentation as Debian ships it (``python3.11-doc``), read into blocks.

Its HOWTOs, tutorial and library reference are well-structured prose written by people for
other purposes, so they stand in for what a capable model writes (see ``prose``). The
package is fetched at run time into a cache folder (``make docs``, or
``python -m ponder.testing.pydocs [FOLDER]``), never installed system-wide, and each page
is read into its headings, paragraphs, lists, tables and code blocks, keeping the page's
own markup of each block so a page can be written back as a (shorter) HTML page.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from selectolax.lexbor import LexborNode

PACKAGE = "python3.11-doc"
HTML_DIR = Path("usr/share/doc/python3.11/html")

BlockKind = Literal["para", "items", "table", "code"]


@dataclass(frozen=True)
class Block:
    """One block of a page. ``text`` holds the paragraph, the list items, the table rows
    (cells joined by a tab) or the code; inline code is in backticks, as in Markdown."""

    kind: BlockKind
    lines: tuple[str, ...]
    html: str
    ordered: bool = False  # an <ol> list
    language: str = ""  # a code block's language, as Markdown fences name it


@dataclass
class Section:
    heading: str
    level: int  # 1 for the page's own title, 2 for its sections, 3 below
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Page:
    name: str  # e.g. "howto/sorting"
    title: str
    sections: list[Section]
    links: list[str]  # names of the library pages it links to, in order

    def words(self) -> int:
        return sum(len(" ".join(b.lines).split()) for s in self.sections for b in s.blocks)


class DocsMissing(FileNotFoundError):
    """The documentation has not been fetched into the cache folder yet."""


def html_root(cache: Path) -> Path:
    """The unpacked HTML documentation in ``cache``; DocsMissing says how to fetch it."""
    root = cache / PACKAGE / HTML_DIR
    if not (root / "index.html").is_file():
        raise DocsMissing(
            f"Debian's {PACKAGE} is not unpacked in {cache}: run `make docs` (or "
            f"`python -m ponder.testing.pydocs {cache}`), which needs apt-get and dpkg-deb."
        )
    return root


def fetch(cache: Path) -> Path:
    """Download ``python3.11-doc`` with apt-get and unpack it into ``cache`` (once)."""
    try:
        return html_root(cache)
    except DocsMissing:
        pass
    if not (shutil.which("apt-get") and shutil.which("dpkg-deb")):
        raise DocsMissing(f"Fetching {PACKAGE} needs Debian's apt-get and dpkg-deb.")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".fetch-") as work:
        download = ["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", PACKAGE]
        if subprocess.run(download, cwd=work, capture_output=True).returncode != 0:
            # A fresh machine has no package lists yet.
            subprocess.run(["apt-get", "update", "-q"], check=True, capture_output=True)
            subprocess.run(download, cwd=work, check=True, capture_output=True)
        deb = next(Path(work).glob("*.deb"))
        unpacked = Path(work) / PACKAGE
        subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        shutil.rmtree(cache / PACKAGE, ignore_errors=True)
        unpacked.rename(cache / PACKAGE)
    return html_root(cache)


# -- reading a page ---------------------------------------------------------------------

_CODE = re.compile(r"<code\b[^>]*>(.*?)</code>", re.S)
_TAG = re.compile(r"<[^>]+>")
_HEADERLINK = re.compile(r'<a class="headerlink".*?</a>', re.S)
# Blocks that only hold other blocks (notes, definitions, quotes): read what is inside.
_CONTAINERS = frozenset({"div", "blockquote", "dl", "dd", "dt", "aside"})
# Page furniture and lists of links, not prose.
_SKIP_CLASSES = (
    "toctree-wrapper",
    "contents",
    "field-list",
    "admonition-title",
    "sig",
    "seealso",
    "versionadded",
    "versionchanged",
    "deprecated",
    "impl-detail",
)


def inline_text(html: str) -> str:
    """A block's text on one line, inline code in backticks."""
    from selectolax.lexbor import LexborHTMLParser

    marked = _CODE.sub(lambda m: "`" + _TAG.sub("", m.group(1)) + "`", _HEADERLINK.sub("", html))
    tree = LexborHTMLParser(marked)
    root = tree.body or tree.root
    return " ".join((root.text(deep=True) if root else "").split())


@functools.cache
def read_page(root: Path, name: str) -> Page:
    """Read ``<root>/<name>.html`` (``name`` like ``"howto/sorting"``) into sections."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser((root / f"{name}.html").read_text(encoding="utf-8"))
    body = tree.css_first("div.body")
    sections: list[Section] = []
    top = body.css_first("section") if body else None
    if top is not None:
        _read_section(top, 1, sections)
    folder = name.rsplit("/", 1)[0]
    links: list[str] = []
    for anchor in body.css("a.reference.internal") if body else []:
        target = (anchor.attributes.get("href") or "").split("#")[0]
        if target.startswith("../library/") or (folder == "library" and "/" not in target):
            linked = "library/" + target.rsplit("/", 1)[-1].removesuffix(".html")
            if target and linked != name and linked not in links:
                links.append(linked)
    title = sections[0].heading if sections else name
    return Page(name, title, sections, links)


def _read_section(node: LexborNode, level: int, out: list[Section]) -> None:
    heading = next((c for c in _children(node) if re.fullmatch(r"h[1-6]", c.tag or "")), None)
    section = Section(inline_text(heading.html or "") if heading else "", level)
    out.append(section)
    for child in _children(node):
        if child.tag == "section":
            _read_section(child, level + 1, out)
        elif child is not heading:
            _collect(child, section.blocks)


def _children(node: LexborNode) -> list[LexborNode]:
    return list(node.iter(include_text=False))


def _collect(node: LexborNode, blocks: list[Block]) -> None:
    tag = node.tag
    classes = (node.attributes.get("class") or "").split()
    html = node.html or ""
    if any(c in _SKIP_CLASSES for c in classes):
        return
    if tag == "p":
        text = inline_text(html)
        if text:
            blocks.append(Block("para", (text,), html))
    elif tag in ("ul", "ol"):
        items = [c for c in _children(node) if c.tag == "li"]
        if items and not node.css("li ul, li ol"):
            lines = tuple(inline_text(li.html or "") for li in items)
            blocks.append(Block("items", lines, html, ordered=tag == "ol"))
    elif tag == "table":
        _table(node, html, blocks)
    elif tag == "pre" or (tag == "div" and any(c.startswith("highlight") for c in classes)):
        pre = node if tag == "pre" else node.css_first("pre")
        language = next((c[10:] for c in classes if c.startswith("highlight-")), "")
        if pre is not None:
            code = "\n".join(line.rstrip() for line in pre.text(deep=True).strip("\n").split("\n"))
            fence = {"python3": "python", "default": "python", "none": "text"}.get(language)
            blocks.append(Block("code", (code,), html, language=fence or language))
    elif tag in _CONTAINERS:
        for child in _children(node):
            _collect(child, blocks)


def _table(node: LexborNode, html: str, blocks: list[Block]) -> None:
    """A regular table (no spanning cells, 2-5 columns, no empty cell) as tab-joined rows;
    any other table as a block without lines, so a reader knows something stood there."""
    rows = [[inline_text(c.html or "") for c in row.css("th, td")] for row in node.css("tr")]
    widths = {len(r) for r in rows}
    regular = not node.css("[colspan], [rowspan]") and len(rows) >= 3 and len(widths) == 1
    if regular and 2 <= widths.pop() <= 5 and all(all(cells) for cells in rows):
        blocks.append(Block("table", tuple("\t".join(r) for r in rows), html))
    else:
        blocks.append(Block("table", (), html))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    cache = Path(args[0] if args else ".cache")
    try:
        root = fetch(cache)
    except (DocsMissing, subprocess.CalledProcessError) as exc:
        print(f"Could not fetch {PACKAGE}: {exc}", file=sys.stderr)
        return 1
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
