"""Documents in the formats people keep, written at run time from the Python docs' pages.

Each page of Debian's ``python3.11-doc`` (human-written prose, :mod:`.pydocs`) is written as
a person's document would be, by the libraries that write each format, never by ponder:

- pandoc (PyPI ``pypandoc-binary``, run as its own process) writes DOCX, ODT, EPUB, PPTX,
  Jupyter notebooks, LaTeX, Org and Markdown with front matter from the page's main text,
  with its title, author and date as metadata;
- nbformat writes notebooks whose code cells carry the outputs the page's examples show;
- openpyxl (XLSX) and odfpy (ODS) write a page's tables as spreadsheets.

The page's own HTML (its main text, the markup's attributes dropped as a person's file has
none) is the original every format is compared with.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# pandoc's writer for each suffix.
PANDOC = {
    ".docx": "docx",
    ".odt": "odt",
    ".epub": "epub3",
    ".pptx": "pptx",
    ".ipynb": "ipynb",
    ".tex": "latex",
    ".org": "org",
    ".md": "markdown",
}
AUTHOR = "Python Software Foundation"  # the docs' copyright holder, as each page says


@dataclass(frozen=True)
class Original:
    """A page as its own HTML file: the main text, its title and when it was updated."""

    name: str  # "library/json"
    title: str
    date: str  # ISO 8601, from the page's "Last updated on"
    html: str

    @property
    def stem(self) -> str:
        return self.name.replace("/", "-")


def original(root: Path, name: str) -> Original:
    """The page ``name`` ("library/json") of the docs at ``root``, as a plain HTML file."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser((root / f"{name}.html").read_text(encoding="utf-8"))
    body = tree.css_first("div.body")
    if body is None:
        raise ValueError(f"{name} has no main text")
    for link in body.css("a.headerlink"):
        link.decompose()
    for node in body.traverse():
        for key in list(node.attrs.keys()):
            if not (node.tag == "a" and key == "href"):
                del node.attrs[key]
    heading = body.css_first("h1")
    title = " ".join((heading.text() if heading else name).split())
    footer = tree.css_first("div.footer")
    date = _iso(footer.text() if footer else "")
    page = (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{_escape(title)}</title>"
        f"</head><body>{body.html}</body></html>\n"
    )
    return Original(name, title, date, page)


def write_pandoc(page: Original, suffix: str, folder: Path) -> Path:
    """``page`` written by pandoc in the format of ``suffix``, with its metadata."""
    import pypandoc

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{page.stem}{suffix}"
    command = [
        pypandoc.get_pandoc_path(),
        "--from=html",
        f"--to={PANDOC[suffix]}",
        "--standalone",
        f"--metadata=title:{page.title}",
        f"--metadata=author:{AUTHOR}",
        f"--metadata=date:{page.date}",
        f"--output={target}",
    ]
    subprocess.run(command, input=page.html.encode(), check=True, capture_output=True)
    return target


def write_html(page: Original, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{page.stem}.html"
    target.write_text(page.html, encoding="utf-8")
    return target


def write_corpus(
    root: Path, names: Iterable[str], folder: Path, suffixes: Iterable[str], workers: int = 4
) -> dict[str, Path]:
    """Every page in every format of ``suffixes`` (``.html``: the originals), one folder a
    format (``folder/docx``…); pandoc runs ``workers`` at a time. Returns each folder."""
    pages = [original(root, name) for name in names]
    chosen = list(suffixes)
    folders = {suffix: folder / suffix.lstrip(".") for suffix in chosen}
    jobs = [(page, suffix) for suffix in chosen for page in pages]

    def write(job: tuple[Original, str]) -> Path:
        page, suffix = job
        if suffix == ".html":
            return write_html(page, folders[suffix])
        return write_pandoc(page, suffix, folders[suffix])

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(write, jobs))
    return folders


# -- notebooks with outputs, spreadsheets ------------------------------------------------


def examples(page: Original) -> list[tuple[str, str]]:
    """The page's interactive examples: each ``>>>`` statement and the output it shows."""
    from selectolax.lexbor import LexborHTMLParser

    found: list[tuple[str, str]] = []
    for block in LexborHTMLParser(page.html).css("pre"):
        source: list[str] = []
        output: list[str] = []
        for line in block.text(deep=True).splitlines():
            if line.startswith((">>> ", "... ")) or line in (">>>", "..."):
                if output and source:
                    found.append(("\n".join(source), "\n".join(output)))
                    source, output = [], []
                source.append(line[4:])
            elif source:
                output.append(line)
        if source:
            found.append(("\n".join(source), "\n".join(output)))
    return found


def write_notebook(page: Original, folder: Path) -> Path:
    """A notebook of the page: its title and paragraphs as Markdown cells, its examples as
    code cells with the output each shows (written by nbformat)."""
    import nbformat
    from nbformat import v4
    from selectolax.lexbor import LexborHTMLParser

    paragraphs = [" ".join(p.text(deep=True).split()) for p in LexborHTMLParser(page.html).css("p")]
    cells = [v4.new_markdown_cell(f"# {page.title}\n\n" + "\n\n".join(paragraphs[:3]))]
    for number, (source, shown) in enumerate(examples(page), start=1):
        outputs = [v4.new_output("stream", name="stdout", text=shown + "\n")] if shown else []
        cells.append(v4.new_code_cell(source, execution_count=number, outputs=outputs))
    cells += [v4.new_markdown_cell(text) for text in paragraphs[3:]]
    notebook = v4.new_notebook(cells=cells, metadata={"authors": [{"name": AUTHOR}]})
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{page.stem}.ipynb"
    nbformat.write(notebook, str(target))
    return target


def tables(page: Original) -> list[list[list[str]]]:
    """The page's tables: rows of cell texts."""
    from selectolax.lexbor import LexborHTMLParser

    found = []
    for table in LexborHTMLParser(page.html).css("table"):
        rows = [
            [" ".join(cell.text(deep=True).split()) for cell in row.css("th, td")]
            for row in table.css("tr")
        ]
        if len(rows) > 1:
            found.append(rows)
    return found


def write_xlsx(page: Original, folder: Path) -> Path:
    """The page's tables as a workbook, a sheet each (written by openpyxl)."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for number, rows in enumerate(tables(page), start=1):
        sheet = book.create_sheet(f"Table {number}")
        for row in rows:
            sheet.append(row)
        for line in sheet.iter_rows():
            for cell in line:  # "==" is an operator in the docs, not a formula
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    cell.data_type = "s"
    book.properties.title = page.title
    book.properties.creator = AUTHOR
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{page.stem}.xlsx"
    book.save(target)
    return target


def write_ods(page: Original, folder: Path) -> Path:
    """The page's tables as an OpenDocument spreadsheet, a sheet each (written by odfpy)."""
    from odf.dc import Creator, Title
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    document.meta.addElement(Title(text=page.title))
    document.meta.addElement(Creator(text=AUTHOR))
    for number, rows in enumerate(tables(page), start=1):
        sheet = Table(name=f"Table {number}")
        for row in rows:
            line = TableRow()
            for value in row:
                cell = TableCell(valuetype="string")
                cell.addElement(P(text=value))
                line.addElement(cell)
            sheet.addElement(line)
        document.spreadsheet.addElement(sheet)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{page.stem}.ods"
    document.save(str(target))
    return target


_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def _iso(footer: str) -> str:
    """ "Last updated on Mar 13, 2023." → "2023-03-13" ('' when the footer says no date)."""
    found = re.search(r"Last updated on (\w{3})\w* (\d{1,2}), (\d{4})", footer)
    if not found or found.group(1).lower() not in _MONTHS:
        return ""
    month = _MONTHS.index(found.group(1).lower()) + 1
    return f"{found.group(3)}-{month:02d}-{int(found.group(2)):02d}"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
