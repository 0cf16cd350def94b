"""A report's Markdown as blocks and runs of text: what the PDF, DOCX and ODT exports lay out.

The tokens are the HTML report's own (:func:`ponder.interfaces.html.markdown.parse`): the
same CommonMark with tables, the same Python sessions kept as code, and each ``[n]`` a
citation that knows the evidence its sentence rests on. Walking them, not the text, is what
keeps a ``#`` inside a code span a ``#`` and a table a table. Every string here is data:
each format writes it through its own library, never as markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ponder.core.result import Report
from ponder.core.untrusted import printable
from ponder.interfaces.html.markdown import Evidence, parse

BlockKind = Literal["heading", "paragraph", "list", "table", "code", "quote", "rule"]
# What XML 1.0 cannot hold (DOCX and ODT are XML): printable() drops the controls already.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def clean(text: str) -> str:
    """Text any format can hold: no control characters, nothing XML refuses."""
    return _NOT_XML.sub("", printable(text or ""))


def clean_report(report: Report) -> Report:
    """The report with every text in it (its sources' addresses, titles and passages too)
    as :func:`clean` leaves it: a page's address with a control character or half a
    surrogate pair made a DOCX writer fail and an ODT invalid."""
    return Report.model_validate(_cleaned(report.model_dump()))


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {key: _cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    return value


def web_link(url: str | None) -> str | None:
    """An http(s) address to link to; anything else (a path, ``javascript:``) is no link."""
    text = (url or "").strip()
    return text if text.lower().startswith(("https://", "http://")) and " " not in text else None


@dataclass
class Run:
    """A stretch of text in one style. ``cite`` is the ``[n]`` it stands for (its text is
    ``[n]``), ``evidence`` the index in ``Report.citations`` of the citation behind it."""

    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    href: str | None = None
    cite: int | None = None
    evidence: int | None = None
    unsupported: bool = False


@dataclass
class Block:
    """One block: a heading (``level``, ``runs``), a paragraph (``runs``), a list
    (``ordered``, ``start``, ``items``: each a list of blocks), a table (``rows`` of cells,
    each a list of runs; the first ``header`` rows are its head; ``align`` per column), a
    code block (``text``, ``lang``), a quote (``children``) or a rule."""

    kind: BlockKind
    level: int = 0
    runs: list[Run] = field(default_factory=list)
    ordered: bool = False
    start: int = 1
    items: list[list[Block]] = field(default_factory=list)
    rows: list[list[list[Run]]] = field(default_factory=list)
    header: int = 0
    align: list[str] = field(default_factory=list)
    text: str = ""
    lang: str = ""
    children: list[Block] = field(default_factory=list)


def markdown_blocks(markdown: str, citable: set[int], evidence: Evidence | None) -> list[Block]:
    """The blocks of a report's Markdown (its body: the Sources are listed apart)."""
    tokens = parse(clean(markdown), citable, evidence)
    blocks, _ = _blocks(tokens, 0, None)
    return blocks


def plain(runs: list[Run]) -> str:
    return "".join(run.text for run in runs)


_LANG = re.compile(r"^[A-Za-z0-9_+#.-]{1,20}$")


def _blocks(tokens: list[Any], at: int, until: str | None) -> tuple[list[Block], int]:
    """Blocks from ``tokens[at:]`` up to the token of type ``until``; returns them and the
    index after it."""
    out: list[Block] = []
    while at < len(tokens):
        token = tokens[at]
        kind = token.type
        if kind == until:
            return out, at + 1
        if kind == "heading_open":
            out.append(Block("heading", level=int(token.tag[1]), runs=_runs(tokens[at + 1])))
            at += 3
        elif kind == "paragraph_open":
            out.append(Block("paragraph", runs=_runs(tokens[at + 1])))
            at += 3
        elif kind in ("bullet_list_open", "ordered_list_open"):
            block = Block("list", ordered=kind == "ordered_list_open")
            block.start = int(token.attrGet("start") or 1)
            block.items, at = _items(tokens, at + 1, kind.replace("_open", "_close"))
            out.append(block)
        elif kind == "blockquote_open":
            children, at = _blocks(tokens, at + 1, "blockquote_close")
            out.append(Block("quote", children=children))
        elif kind == "table_open":
            table, at = _table(tokens, at + 1)
            out.append(table)
        elif kind in ("fence", "code_block"):
            lang = (token.info or "").split()[0] if kind == "fence" and token.info else ""
            text = token.content.rstrip("\n")
            out.append(Block("code", text=text, lang=lang if _LANG.match(lang) else ""))
            at += 1
        elif kind == "hr":
            out.append(Block("rule"))
            at += 1
        elif kind == "inline":  # text outside a paragraph (never with CommonMark's blocks)
            out.append(Block("paragraph", runs=_runs(token)))
            at += 1
        else:
            at += 1
    return out, at


def _items(tokens: list[Any], at: int, close: str) -> tuple[list[list[Block]], int]:
    items: list[list[Block]] = []
    while at < len(tokens) and tokens[at].type != close:
        if tokens[at].type == "list_item_open":
            item, at = _blocks(tokens, at + 1, "list_item_close")
            items.append(item)
        else:
            at += 1
    return items, at + 1


def _table(tokens: list[Any], at: int) -> tuple[Block, int]:
    table = Block("table")
    in_head = False
    row: list[list[Run]] = []
    while at < len(tokens) and tokens[at].type != "table_close":
        token = tokens[at]
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            table.rows.append(row)
            table.header += int(in_head)
        elif token.type in ("th_open", "td_open"):
            if in_head:
                style = str(token.attrGet("style") or "")
                table.align.append(style.removeprefix("text-align:") or "left")
            row.append(_runs(tokens[at + 1]) if tokens[at + 1].type == "inline" else [])
        at += 1
    width = max((len(r) for r in table.rows), default=0)
    table.rows = [r + [[] for _ in range(width - len(r))] for r in table.rows]
    table.align += ["left"] * (width - len(table.align))
    return table, at + 1


def _runs(inline: Any) -> list[Run]:
    """The runs of an inline token: bold, italic, code, links, citations."""
    runs: list[Run] = []
    bold = italic = 0
    href: str | None = None
    for child in inline.children or []:
        kind = child.type
        styled = Run("", bold=bold > 0, italic=italic > 0, href=href)
        if kind == "text":
            runs.append(replace(styled, text=child.content))
        elif kind == "code_inline":
            runs.append(replace(styled, text=child.content, code=True))
        elif kind in ("softbreak", "hardbreak"):
            runs.append(replace(styled, text=" " if kind == "softbreak" else "\n"))
        elif kind in ("strong_open", "strong_close"):
            bold += 1 if kind == "strong_open" else -1
        elif kind in ("em_open", "em_close"):
            italic += 1 if kind == "em_open" else -1
        elif kind == "link_open":
            href = web_link(str(child.attrGet("href") or ""))
        elif kind == "link_close":
            href = None
        elif kind == "image":  # nothing is fetched: its words and where it is
            where = str(child.attrGet("src") or "")
            runs.append(replace(styled, text=f"{child.content} ({where})".strip()))
        elif kind == "citation":
            found = child.meta.get("found")
            number = child.meta["number"]
            evidence = found[0] if found else None
            runs.append(Run(f"[{number}]", cite=number, evidence=evidence))
        elif kind == "unsupported":
            runs.append(Run("unsupported", unsupported=True))
    return _joined(runs)


def _joined(runs: list[Run]) -> list[Run]:
    """Neighbouring runs of one style made one (the parser splits text at brackets)."""
    out: list[Run] = []
    for run in runs:
        last = out[-1] if out else None
        if (
            last is not None
            and run.cite is None
            and last.cite is None
            and not (run.unsupported or last.unsupported)
            and (run.bold, run.italic, run.code, run.href)
            == (last.bold, last.italic, last.code, last.href)
        ):
            last.text += run.text
        else:
            out.append(run)
    return out
