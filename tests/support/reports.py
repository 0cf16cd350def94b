"""Reports made of the Python docs' own sentences, for the export tests and the bench.

:func:`docs_report` writes a report as a capable model would, with headings, a table, a
list, a code block, emphasis and links, each sentence a real one from a page of Debian's
python3.11-doc and cited with the span of the passage it comes from; among its sources
two papers of a reference library (authors, year, DOI or URL from the library's entry) and
a document of yours. :func:`deep_report` is the scripted rig's deep run over the docs'
HTML pages: twenty and more cited sources, as ponder writes them.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from ponder.core.result import Citation, Report, RunStats, SourceRef
from ponder.testing.library import DECODED_AUTHORS, DECODED_TITLES, PAPERS
from ponder.testing.pydocs import read_page

DOCS = "https://docs.python.org/3.11/"
# (page, how the report uses it): web pages of the docs, then the library's papers and a
# document of yours.
WEB = ("library/bisect", "library/heapq", "library/functools", "library/operator")
PAPER_KEYS = ("dalke2021", "sajip2020")  # howto/sorting (DOI), howto/logging (URL)


def first_sentence(text: str) -> str:
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def paragraphs(root: Path, name: str, count: int = 3) -> list[str]:
    page = read_page(root, name)
    found = [
        " ".join(block.lines)
        for section in page.sections
        for block in section.blocks
        if block.kind == "para" and len(" ".join(block.lines)) > 80
    ]
    return found[:count]


def code_block(root: Path, name: str) -> str:
    page = read_page(root, name)
    return next(b.lines[0] for s in page.sections for b in s.blocks if b.kind == "code")


class _Writer:
    """A report's Markdown and its citations, sentence by sentence."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.citations: list[Citation] = []

    def cite(self, source: SourceRef, passage: int = 0) -> str:
        """The first sentence of the source's passage, cited: ``sentence [n]``."""
        text = source.passages[passage]
        sentence = first_sentence(text)
        start = text.index(sentence)
        self.citations.append(
            Citation(
                sentence=sentence.replace("`", ""),
                number=source.number,
                url=source.url,
                passage=passage,
                start=start,
                end=start + len(sentence),
                quote=" ".join(sentence.split()),
                support=0.9,
            )
        )
        return f"{sentence} [{source.number}]"


def docs_report(root: Path, topic: str = "How do I sort and search data in Python?") -> Report:
    """A focused report over seven sources of the Python docs (see the module's note)."""
    papers = {paper.key: paper for paper in PAPERS}
    sources: list[SourceRef] = []

    def paper(key: str) -> None:
        found = papers[key]
        sources.append(
            SourceRef(
                number=len(sources) + 1,
                cited=True,
                url=f"/home/ada/library/{found.file}",
                title=DECODED_TITLES[key],
                origin="local",
                passages=paragraphs(root, found.page),
                locations=["page 1", "page 1", "page 2"],
                authors=DECODED_AUTHORS[key],
                date=str(found.year),
                link=f"https://doi.org/{found.doi}" if found.doi else found.url,
            )
        )

    paper(PAPER_KEYS[0])  # numbered as cited: the HOWTO first
    for name in WEB:
        page = read_page(root, name)
        sources.append(
            SourceRef(
                number=len(sources) + 1,
                cited=True,
                url=f"{DOCS}{name}.html",
                title=page.title.replace("`", "") + " — Python 3.11 documentation",
                passages=paragraphs(root, name),
                locations=["", "", ""],
            )
        )
    paper(PAPER_KEYS[1])
    sources.append(
        SourceRef(
            number=len(sources) + 1,
            cited=True,
            url="/home/ada/notes/itertools & recipes_v2.md",
            title="My notes on itertools {draft} #3",
            origin="local",
            passages=paragraphs(root, "library/itertools"),
            authors=["Ada Lovelace"],
            date="2024-03-04",
        )
    )
    sorting, bisect, heapq, functools, operator, logging, notes = sources
    w = _Writer()
    w.lines += [
        "# Sorting and searching with Python's standard library",
        "",
        f"{w.cite(sorting)} {w.cite(sorting, 1)}",
        "",
        "## Keeping a list sorted",
        "",
        f"{w.cite(bisect)} The module is described in the "
        f"[bisect documentation]({DOCS}library/bisect.html).",
        "",
        "| Module | What it offers | Where |",
        "|---|---|:---:|",
        f"| `bisect` | {w.cite(bisect, 1)} | web |",
        f"| `heapq` | {w.cite(heapq)} | web |",
        f"| **functools** | {w.cite(functools)} | web |",
        "",
        "## Keys and comparisons",
        "",
        f"- {w.cite(operator)}",
        f"- *Logging while sorting*: {w.cite(logging)}",
        f"- {w.cite(notes)}",
        "",
        "A short session from the HOWTO:",
        "",
        "```python",
        code_block(root, "howto/sorting"),
        "```",
        "",
        f"> {w.cite(functools, 1)}",
        "",
        "## Sources",
        "",
        *(f"{s.number}. {s.title} — {s.url}" for s in sources),
    ]
    return Report(
        topic=topic,
        markdown="\n".join(w.lines) + "\n",
        summary="",
        sources=sources,
        stats=RunStats(rounds=2, llm_calls=9, wall_seconds=41.0),
        thread_id="20260101-120000-docs01",
        citations=w.citations,
    )


# -- a report built to break each format --------------------------------------------------

HOSTILE = [
    '#read("/etc/passwd") #import "@preview/x:0.1.0": * $x^2$ @ref <label> `code` [link]',
    "</w:t></w:r><w:r><w:t>injected</w:t> <text:p>odt</text:p> <script>alert(1)</script>",
    "{ unbalanced } } { \\end{document} \\input{/etc/passwd} % # & _ ^ ~ \\",
    "a" * 600,
    "\x00\x07\x1b[31mred\x1b[0m \ud800 \ufffe ok",
]


def hostile_report() -> Report:
    """Markup of Typst, WordprocessingML, ODF, HTML and LaTeX, a 600-letter word, control
    characters and lone surrogates, a 200-row table and links that must not become links."""
    rows = "\n".join(f"| row {i} | {HOSTILE[i % 3][:40]} | {i * i} |" for i in range(1, 201))
    text = "\n\n".join(f"{line} [1]" for line in HOSTILE)
    markdown = (
        f"# {HOSTILE[0]}\n\n{text}\n\n| n | text | square |\n|---|---|--:|\n{rows}\n\n"
        f"[a link](javascript:alert(1)) and ![an image](file:///etc/passwd)\n"
    )
    source = SourceRef(
        number=1, cited=True, url="javascript:alert(1)//" + HOSTILE[1], title=HOSTILE[2],
        passages=[HOSTILE[1], HOSTILE[2]], authors=[HOSTILE[2], "Smith and Sons"],
        date="2021-13-45", link="javascript:alert(2)",
    )  # fmt: skip
    return Report(
        topic=HOSTILE[0],
        markdown=markdown,
        summary="",
        sources=[source],
        stats=RunStats(),
        thread_id="t",
        citations=[
            Citation(
                sentence=HOSTILE[2],
                number=1,
                url=source.url,
                passage=1,
                start=0,
                end=20,
                quote=HOSTILE[2],
                support=1.0,
            )
        ],
    )


# -- the scripted rig's deep run ------------------------------------------------------------

PAGES = (
    "howto/sorting", "howto/functional", "tutorial/datastructures", "tutorial/controlflow",
    "library/functions", "library/itertools", "library/functools", "library/collections",
    "library/heapq", "library/bisect", "library/operator", "library/re", "library/string",
    "library/json", "library/csv", "library/pathlib", "library/os.path", "library/shutil",
    "library/glob", "library/fnmatch", "library/datetime", "library/time", "library/statistics",
    "library/random", "library/math", "library/decimal", "library/fractions",
    "library/dataclasses", "library/enum", "library/typing",
)  # fmt: skip
SUBTOPICS = [
    ["sorting and ordering lists", "iterating with itertools", "collections data types",
     "functional tools functools operator", "regular expressions and strings"],
    ["dates and times", "files and paths", "numbers and statistics", "json and csv files",
     "enums and dataclasses"],
]  # fmt: skip
DEEP_TOPIC = "How do I sort, group and summarise data with the Python standard library?"


def docs_corpus(root: Path, folder: Path) -> Path:
    """The docs' HTML pages of :data:`PAGES`, copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        shutil.copy(root / f"{name}.html", folder / f"{name.replace('/', '-')}.html")
    return folder


def deep_report(rig: Any, scripted: Any, corpus: Path) -> Report:
    """The deep pipeline over ``corpus`` with ten researchers in two rounds (scripted)."""
    from ponder import aresearch

    decisions = iter(SUBTOPICS)
    scripted.overrides["SupervisorDecision"] = lambda _request: {
        "reflection": "r",
        "subtopics": next(decisions, []),
        "research_complete": False,
    }
    return asyncio.run(
        aresearch(
            DEEP_TOPIC,
            model=rig.models[0],
            ollama_base_url=rig.url,
            search="local",
            docs=[str(corpus)],
            mode="deep",
            max_loops=2,
            max_supervisor_rounds=3,
            max_concurrent_researchers=5,
            allow_clarification=False,
        )
    )
