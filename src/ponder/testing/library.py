"""A reference library written at run time: BibTeX and CSL JSON exports whose entries
attach PDFs and EPUBs made from pages of the Python docs (:mod:`.formats`).

The papers are the docs' HOWTOs, under their real authors; each file's own metadata names
the page's title and the Python Software Foundation, as pandoc and reportlab write it, so
a citation that names the entry's authors, year and DOI can only have them from the
library. One entry's file is missing, as happens when a PDF was never synced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ponder.testing.formats import AUTHOR, Original, original, write_pandoc


@dataclass(frozen=True)
class Paper:
    key: str
    page: str  # the docs page it is made of ("howto/sorting"); "" for a missing file
    suffix: str
    title: str  # as the library writes it: LaTeX in BibTeX
    authors: tuple[tuple[str, str], ...]  # (family, given), LaTeX in BibTeX
    year: int
    doi: str = ""
    url: str = ""

    @property
    def file(self) -> str:
        stem = self.page.replace("/", "-") if self.page else self.key
        return f"papers/{stem}{self.suffix}"


PAPERS = (
    Paper(
        "dalke2021", "howto/sorting", ".pdf", "Sorting {HOW TO}",
        (("Dalke", "Andrew"), ("Hettinger", "Raymond")), 2021, doi="10.5555/pydocs.sorting",
    ),
    Paper(
        "kuchling2022", "howto/regex", ".epub", "Regular Expression {HOWTO}",
        (("Kuchling", "A. M."),), 2022, doi="10.5555/pydocs.regex",
    ),
    Paper(
        "sajip2020", "howto/logging", ".pdf", "Logging {HOWTO}: B{\\'a}sico to advanced",
        (("Sajip", "Vinay"), ("L{\\\"o}wis", "Martin von")), 2020,
        url="https://docs.python.org/3.11/howto/logging.html",
    ),
    Paper(
        "gone2019", "", ".pdf", "A Paper Never Synced", (("Nobody", "Anne"),), 2019,
        doi="10.5555/pydocs.gone",
    ),
)  # fmt: skip
# What each looks like once read: the LaTeX decoded.
DECODED_TITLES = {
    "dalke2021": "Sorting HOW TO",
    "kuchling2022": "Regular Expression HOWTO",
    "sajip2020": "Logging HOWTO: Básico to advanced",
}
DECODED_AUTHORS = {
    "dalke2021": ["Andrew Dalke", "Raymond Hettinger"],
    "kuchling2022": ["A. M. Kuchling"],
    "sajip2020": ["Vinay Sajip", "Martin von Löwis"],
}
FILE_AUTHOR = AUTHOR  # what every attached file's own metadata says


def write_papers(root: Path, folder: Path) -> None:
    """The attachments of ``PAPERS`` in ``folder/papers`` (all but the missing one)."""
    for paper in PAPERS:
        if not paper.page:
            continue
        page = original(root, paper.page)
        target = folder / paper.file
        if paper.suffix == ".pdf":
            write_pdf(page, target)
        else:
            written = write_pandoc(page, paper.suffix, target.parent)
            written.rename(target)


def write_bibtex(folder: Path, name: str = "refs.bib") -> Path:
    """``PAPERS`` as Zotero (Better BibTeX), JabRef and Mendeley each write a ``file``."""
    forms = [
        lambda path: f"Full Text PDF:{path}:application/pdf",  # Zotero
        lambda path: f":{path}:EPUB",  # JabRef
        lambda path: f":{path}:pdf",  # Mendeley
    ]
    blocks = []
    for number, paper in enumerate(PAPERS):
        authors = " and ".join(f"{family}, {given}" for family, given in paper.authors)
        fields = [f"  title = {{{paper.title}}}", f"  author = {{{authors}}}"]
        fields.append(f"  year = {{{paper.year}}}")
        fields += [f"  doi = {{{paper.doi}}}"] if paper.doi else []
        fields += [f"  url = {{{paper.url}}}"] if paper.url else []
        fields.append(f"  file = {{{forms[number % len(forms)](paper.file)}}}")
        blocks.append(f"@article{{{paper.key},\n" + ",\n".join(fields) + "\n}\n")
    target = folder / name
    target.write_text("\n".join(blocks), encoding="utf-8")
    return target


def write_csl_json(folder: Path, name: str = "refs.json") -> Path:
    """``PAPERS`` as CSL JSON (the LaTeX of the titles and names as plain text)."""
    items = []
    for paper in PAPERS:
        item: dict[str, object] = {
            "id": paper.key,
            "type": "article-journal",
            "title": DECODED_TITLES.get(paper.key, paper.title),
            "author": [
                {"family": family.replace('L{\\"o}wis', "Löwis"), "given": given}
                for family, given in paper.authors
            ],
            "issued": {"date-parts": [[paper.year]]},
            "file": paper.file,
        }
        if paper.doi:
            item["DOI"] = paper.doi
        if paper.url:
            item["URL"] = paper.url
        items.append(item)
    target = folder / name
    target.write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")
    return target


def write_pdf(page: Original, target: Path) -> Path:
    """``page``'s paragraphs typeset as a PDF (reportlab), its metadata the page's title and
    the docs' author, as a PDF saved from the web would have."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate
    from selectolax.lexbor import LexborHTMLParser

    styles = getSampleStyleSheet()
    story = []
    for node in LexborHTMLParser(page.html).css("h1, h2, h3, p, li, pre"):
        words = " ".join(node.text().split())
        if words:
            style = styles["Heading2"] if (node.tag or "").startswith("h") else styles["BodyText"]
            story.append(Paragraph(_escape(words), style))
    target.parent.mkdir(parents=True, exist_ok=True)
    document = SimpleDocTemplate(str(target), pagesize=A4, title=page.title, author=AUTHOR)
    document.build(story[:200])
    return target


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
