"""Your reference library: BibTeX and CSL JSON exports read into entries, their attachments
found only where they may be read, and searched as the papers they are."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest
from support import python_docs

from ponder.core.errors import SearchError
from ponder.services.search.backends.local.library import catalog as catalog_module
from ponder.services.search.backends.local.library.bibtex import file_paths, read_bibtex
from ponder.services.search.backends.local.library.catalog import load_catalog, parse_file
from ponder.services.search.backends.local.library.csl import read_csl_json
from ponder.services.search.factory import make_search, offline_sources, preflight
from ponder.settings.configuration import Configuration
from ponder.settings.environment import read_environment
from ponder.testing.library import (
    DECODED_AUTHORS,
    DECODED_TITLES,
    FILE_AUTHOR,
    PAPERS,
    write_bibtex,
    write_csl_json,
    write_papers,
)

ZOTERO = r"""
@article{muller2021,
  title = {On the {B}ehaviour of {\"U}ber-Parsers: {S}tudies in $\alpha$ \& na{\"\i}ve code},
  author = {M{\"u}ller, J{\"o}rg and Smith, Anne and {World Health Organization}},
  date = {2021-03-04},
  doi = {https://doi.org/10.1234/ABC.5678},
  file = {Full Text PDF:files/muller2021.pdf:application/pdf;Snapshot:files/snap.html:text/html}
}
@book{doe2019, title = "A Book", editor = "Doe, J. and de la Fontaine, Jr, Jean",
  year = 2019, month = mar, url = {https://example.org/book}, file = {:papers/doe.pdf:PDF}}
@misc{mendeley, title = {Windows}, year = {c. 2018}, file = {:C\:/Users/me/paper.pdf:pdf}}
"""


def test_bibtex_entries_are_read_with_their_latex_decoded_and_files_found() -> None:
    entries, failures = read_bibtex(ZOTERO)
    assert failures == []
    muller, doe, mendeley = entries
    assert muller.key == "muller2021"
    assert muller.title == "On the Behaviour of Über-Parsers: Studies in α & naïve code"
    assert muller.authors == ["Jörg Müller", "Anne Smith", "World Health Organization"]
    assert (muller.date, muller.doi) == ("2021-03-04", "10.1234/ABC.5678")
    assert muller.link == "https://doi.org/10.1234/ABC.5678"
    assert muller.files == ["files/muller2021.pdf", "files/snap.html"]
    assert doe.authors == ["J. Doe", "Jean de la Fontaine, Jr"]  # the editors, no author
    assert (doe.date, doe.link, doe.files) == (
        "2019-03",
        "https://example.org/book",
        ["papers/doe.pdf"],
    )
    assert (mendeley.date, mendeley.files) == ("2018", ["C:/Users/me/paper.pdf"])


@pytest.mark.parametrize(
    ("field", "paths"),
    [
        ("files/a.pdf", ["files/a.pdf"]),  # the path alone
        ("Full Text:files/a.pdf:application/pdf", ["files/a.pdf"]),  # Zotero
        (":papers/a b.pdf:PDF;:papers/c.epub:EPUB", ["papers/a b.pdf", "papers/c.epub"]),  # JabRef
        (r":C\:/Users/x/a.pdf:pdf", ["C:/Users/x/a.pdf"]),  # Mendeley
        ("files/a.pdf:PDF", ["files/a.pdf"]),  # path:type
    ],
)
def test_the_file_field_in_each_managers_form(field: str, paths: list[str]) -> None:
    assert file_paths(field) == paths


def test_csl_json_entries() -> None:
    items = [
        {
            "id": "lovelace1843",
            "title": "Notes on the Analytical Engine",
            "author": [{"family": "Lovelace", "given": "Ada"}, {"literal": "The Royal Society"}],
            "issued": {"date-parts": [[1843, 9]]},
            "DOI": "doi:10.5555/ada",
            "file": "papers/ada.pdf;papers/ada.epub",
        },
        {"id": "bbt", "title": "T", "URL": "https://x.org/t", "attachments": [{"path": "/a/b.pdf"}],
         "issued": {"raw": "2020-05-01"}, "author": [{"family": "Beethoven", "given": "Ludwig",
         "non-dropping-particle": "van"}]},
        "not an item",
    ]  # fmt: skip
    entries, failures = read_csl_json(json.dumps(items))
    ada, bbt = entries
    assert ada.authors == ["Ada Lovelace", "The Royal Society"]
    assert (ada.date, ada.link, ada.files) == (
        "1843-09",
        "https://doi.org/10.5555/ada",
        ["papers/ada.pdf", "papers/ada.epub"],
    )
    assert (bbt.authors, bbt.date, bbt.link, bbt.files) == (
        ["Ludwig van Beethoven"],
        "2020-05-01",
        "https://x.org/t",
        ["/a/b.pdf"],
    )
    assert failures == ["item 3 (a str, not an object)"]


def test_a_malformed_entry_is_named_in_one_warning_and_the_rest_is_used(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nAlpha.", encoding="utf-8")
    library = tmp_path / "refs.bib"
    library.write_text(
        "@article{good, title={Good}, file={a.md}}\n"
        "@misc{broken, title = {never closed\n"
        "@article{later, title={Later}}\n"
        "@article{good, title={Twice}}\n",
        encoding="utf-8",
    )
    catalog = load_catalog([str(library)])
    [warning] = catalog.warnings()
    assert warning.startswith(
        "refs.bib: 2 entries could not be read, left out: line 2, @misc{broken"
    )
    assert "line 4, @article{good (a second entry of that key)" in warning
    assert catalog.libraries[0].entries == 2
    assert [entry.key for entry in catalog.entries.values()] == ["good"]


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        ("refs.json", '[{"id": "a",', "it is not JSON"),
        ("refs.json", '{"id": "a"}', "holds no list"),
        ("refs.bib", "Title: a paper\nAuthor: me\n", "holds no BibTeX entry"),
    ],
)
def test_a_library_that_cannot_be_read_is_an_error_naming_it(
    tmp_path: Path, name: str, text: str, why: str
) -> None:
    library = tmp_path / name
    library.write_text(text, encoding="utf-8")
    shown = re.escape(f"Cannot read your reference library {library}: ")
    with pytest.raises(SearchError, match=f"{shown}.*{why}.* — export it again"):
        load_catalog([str(library)])
    with pytest.raises(SearchError, match="does not exist — check --library"):
        load_catalog([str(tmp_path / "gone.bib")])


def test_a_library_is_read_under_a_size_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = tmp_path / "refs.bib"
    library.write_text("".join(f"@misc{{a{n}, title={{A}}}}\n" for n in range(100)), "utf-8")
    monkeypatch.setattr(catalog_module, "MAX_LIBRARY_BYTES", 1000)
    assert parse_file(str(library)).problem == "it is larger than 0 MB"
    monkeypatch.setattr(catalog_module, "MAX_LIBRARY_BYTES", 10_000)
    monkeypatch.setattr(catalog_module, "MAX_ENTRIES", 30)
    parsed = parse_file(str(library))
    assert (len(parsed.entries), parsed.beyond, parsed.problem) == (30, 70, None)


def test_attachments_outside_the_librarys_folder_are_never_read(tmp_path: Path) -> None:
    """``../``, an absolute path elsewhere, a link out and a hidden folder: one warning
    names them, and no search can reach them."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe vault code is zebra.", encoding="utf-8")
    folder = tmp_path / "library"
    (folder / "papers" / ".hidden").mkdir(parents=True)
    (folder / "papers" / "ok.md").write_text("# Ok\n\nZebra crossings are safe.", "utf-8")
    (folder / "papers" / ".hidden" / "h.md").write_text("# H\n\nZebra hidden.", "utf-8")
    os.symlink(outside / "secret.md", folder / "papers" / "link.md")
    os.symlink(outside, folder / "papers" / "dir")
    entries = {
        "ok": "papers/ok.md",
        "up": "../outside/secret.md",
        "passwd": "../../../../../../etc/passwd",
        "absolute": str(outside / "secret.md"),
        "link": "papers/link.md",
        "dirlink": "papers/dir/secret.md",
        "hidden": "papers/.hidden/h.md",
    }
    library = folder / "refs.bib"
    library.write_text(
        "".join(
            f"@misc{{{key}, title={{{key}}}, file={{{path}}}}}\n" for key, path in entries.items()
        ),
        encoding="utf-8",
    )
    catalog = load_catalog([str(library)])
    assert catalog.files == [str(folder / "papers" / "ok.md")]
    [warning] = catalog.warnings()
    assert warning.startswith(
        f"refs.bib: 6 attachments lie outside the library's folder ({folder})"
    )
    named = [f"{key} ({path})" for key, path in entries.items() if key != "ok"]
    assert warning.endswith(", ".join(named[:5]) + ", …and 1 more.")

    config = Configuration.create(library=[str(library)], search="local")
    backend = make_search(config, lambda _: None, environment=read_environment())
    found = asyncio.run(backend.search("zebra vault code", 10))
    assert [r.url for r in found] == [str(folder / "papers" / "ok.md")]


def test_an_attachment_in_an_operators_document_root_is_read(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "paper.md").write_text("# Paper\n\nOn walruses.", encoding="utf-8")
    folder = tmp_path / "me"
    folder.mkdir()
    library = folder / "refs.bib"
    library.write_text(f"@misc{{w, title={{Walruses}}, file={{{shared}/paper.md}}}}", "utf-8")
    assert load_catalog([str(library)]).files == []
    assert load_catalog([str(library)], roots=[str(shared)]).files == [str(shared / "paper.md")]


# -- the library of the Python docs' HOWTOs, searched -----------------------------------


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("library")
    write_papers(python_docs(), folder)
    return folder


@pytest.mark.parametrize("kind", ["bibtex", "csl"])
def test_a_search_of_the_library_cites_its_papers_not_their_files(papers: Path, kind: str) -> None:
    library = write_bibtex(papers) if kind == "bibtex" else write_csl_json(papers)
    config = Configuration.create(library=[str(library)], search="local")
    warnings: list[str] = []
    backend = make_search(config, warnings.append, environment=read_environment())
    assert warnings == []  # a round says nothing: the run's first check did
    by_key = {paper.key: paper for paper in PAPERS}
    for query, key, suffix in [
        ("sort a list of tuples with a key function", "dalke2021", ".pdf"),
        ("regular expression groups and backreferences", "kuchling2022", ".epub"),
        ("logging handlers and log levels", "sajip2020", ".pdf"),
    ]:
        first = asyncio.run(backend.search(query, 3))[0]
        paper = by_key[key]
        assert first.url == str(papers / paper.file) and first.url.endswith(suffix)
        assert first.title == DECODED_TITLES[key]
        assert first.authors == DECODED_AUTHORS[key] and FILE_AUTHOR not in first.authors
        assert first.date == str(paper.year)
        assert first.link == (f"https://doi.org/{paper.doi}" if paper.doi else paper.url)


def test_the_run_says_once_which_files_are_missing(papers: Path) -> None:
    library = write_bibtex(papers)
    config = Configuration.create(library=[str(library)])
    warnings: list[str] = []
    preflight(config, "sorting", warnings.append)  # offline in tests: the library is searched
    missing = [line for line in warnings if "missing" in line]
    assert missing == [
        "refs.bib: 1 entry's file is missing: gone2019 (papers/gone2019.pdf) — the rest of the "
        "library is searched."
    ]
    assert any("this run searches your reference library only" in line for line in warnings)
    assert offline_sources(config) == ["your reference library"]


def test_doctor_counts_the_entries_and_attachments_and_names_what_is_wrong(papers: Path) -> None:
    from ponder.interfaces.doctor import library_checks

    config = Configuration.create(library=[str(write_bibtex(papers))])
    lines = [check.line() for check in library_checks(config)]
    assert lines == [
        f"✓ Reference library {papers / 'refs.bib'}: 4 entries, 3 attachments",
        "! refs.bib: 1 entry's file is missing: gone2019 (papers/gone2019.pdf) — the rest of the "
        "library is searched.",
    ]
    broken = papers / "broken.json"
    broken.write_text("{", encoding="utf-8")
    [check] = library_checks(Configuration.create(library=[str(broken)]))
    assert check.outcome == "fail" and str(broken) in check.message


def test_the_web_page_links_a_papers_doi_beside_its_file() -> None:
    from ponder.core.result import SourceRef
    from ponder.interfaces.html.sources import sources_section

    paper = SourceRef(
        number=1, url="/papers/a.pdf", title="A", origin="local", passages=["Text."],
        authors=["Ada Lovelace"], date="1843", link="https://doi.org/10.5555/ada",
    )  # fmt: skip
    page = sources_section([paper], [])
    assert 'href="https://doi.org/10.5555/ada"' in page and "Ada Lovelace (1843)" in page
    assert "href" not in sources_section([paper.model_copy(update={"link": None})], [])


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"Erd\H{o}s, \v{S}koda and \c{c}a", "Erdős, Škoda and ça"),
        (r"Stra\ss e \& co -- 50\%", "Straße & co – 50%"),
        (r"\o{}rsted \AA{}ngstr\"om na\"{\i}ve", "ørsted Ångström naïve"),
        (r"a \{b\} c \$5", "a {b} c $5"),
        (r"\textit{Hello} $\alpha$-decay", "Hello α-decay"),  # left to pylatexenc
    ],
)
def test_names_and_titles_are_decoded_from_latex(latex: str, text: str) -> None:
    from ponder.services.search.backends.local.library.bibtex import latex_text

    assert latex_text(latex) == text
