"""The local-documents backend: indexing, incremental refresh, bad files, search, offline."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest
from support import make_pdf, python_docs
from support.edges import cache_dir, here

from ponder.core.errors import SearchError
from ponder.services.search import make_search
from ponder.services.search.backends.local.backend import LocalSearch
from ponder.services.search.backends.local.index import LocalIndex, index_path
from ponder.services.search.backends.local.indexes import index, index_status
from ponder.services.search.backends.local.ranking import fts_query, query_words
from ponder.settings.configuration import Configuration


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PONDER_CACHE_DIR", str(tmp_path / "cache"))


def indexed(*roots: Path) -> LocalIndex:
    local = LocalIndex(roots, cache_dir=cache_dir())
    local.index()
    return local


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "notes.md").write_text(
        "# Tidal energy\n\nTidal turbines convert the flow of seawater into electricity.\n\n"
        "They sit on the seabed in narrow straits.\n",
        encoding="utf-8",
    )
    (docs / "sub" / "bees.txt").write_text(
        "Honeybees communicate the location of flowers with a waggle dance.\n", encoding="utf-8"
    )
    (docs / "guide.rst").write_text(
        "Glacier survey\n==============\n\nFirn compacts into glacial ice over decades.\n",
        encoding="utf-8",
    )
    (docs / "page.html").write_text(
        "<html><head><title>Volcano primer</title><script>var lava = 1;</script></head>"
        "<body><article><p>Basaltic magma erupts effusively and builds shield volcanoes "
        "such as Mauna Loa over thousands of years of gentle eruptions.</p></article>"
        "</body></html>",
        encoding="utf-8",
    )
    (docs / "paper.pdf").write_bytes(make_pdf(["Zebra stripes deter biting flies."]))
    (docs / ".hidden").mkdir()
    (docs / ".hidden" / "secret.md").write_text("zebra secret", encoding="utf-8")
    (docs / "image.png").write_bytes(b"\x89PNG\r\n")
    return docs


def test_indexes_every_supported_format(corpus: Path) -> None:
    warnings: list[str] = []
    stats = index([corpus], warn=warnings.append, cache_dir=cache_dir())
    assert stats.files == 5 and stats.indexed == 5 and stats.skipped == 0
    assert warnings == []
    local = LocalIndex([corpus], cache_dir=cache_dir())  # the index persists: no re-indexing needed
    for query, name in [
        ("tidal turbines", "notes.md"),
        ("waggle dance", "bees.txt"),
        ("firn glacial", "guide.rst"),
        ("basaltic magma shield", "page.html"),
        ("zebra stripes", "paper.pdf"),
    ]:
        hits = local.search(query, 3)
        assert hits and Path(hits[0].url).name == name, query
    assert all(".hidden" not in h.url for h in local.search("zebra", 5))
    assert local.search("lava", 5) == []  # script content is not text


def test_result_points_into_the_file(corpus: Path) -> None:
    hit = indexed(corpus).search("electricity seawater", 1)[0]
    assert hit.origin == "local" and hit.backend == "local"
    assert Path(hit.url).is_absolute() and hit.url == str((corpus / "notes.md").resolve())
    assert hit.title == "Tidal energy"
    start, end = (int(n) for n in hit.location.removeprefix("chars ").split("-"))
    text = (corpus / "notes.md").read_text(encoding="utf-8")
    assert hit.content == text[start:end]
    assert "seawater" in hit.snippet


def test_pdf_location_names_the_page(corpus: Path) -> None:
    hit = indexed(corpus).search("zebra", 1)[0]
    assert hit.location is not None and hit.location.startswith("page 1, chars 0-")


def test_long_documents_become_passages(tmp_path: Path) -> None:
    docs = tmp_path / "long"
    docs.mkdir()
    paragraphs = [f"Paragraph {i} talks about topic{i} in some detail. " * 6 for i in range(40)]
    text = "\n\n".join(paragraphs)
    (docs / "long.md").write_text(text, encoding="utf-8")
    stats = index([docs], cache_dir=cache_dir())
    assert stats.passages >= 10
    hit = LocalIndex([docs], cache_dir=cache_dir()).search("topic33", 1)[0]
    start, end = (int(n) for n in hit.location.removeprefix("chars ").split("-"))
    assert end - start <= 1200 and text[start:end] == hit.content
    assert "topic33" in hit.content


def test_bad_files_are_skipped_with_a_warning(corpus: Path) -> None:
    (corpus / "binary.txt").write_bytes(b"abc\x00\x01\x02" * 100)
    (corpus / "latin1.md").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (corpus / "empty.pdf").write_bytes(make_pdf([]))
    warnings: list[str] = []
    stats = index([corpus], warn=warnings.append, cache_dir=cache_dir())
    assert stats.skipped == 4 and stats.indexed == 5
    joined = "\n".join(warnings)
    assert "binary.txt: binary content" in joined
    assert "latin1.md: not UTF-8 text" in joined
    assert "broken.pdf: unreadable PDF" in joined
    assert "empty.pdf: the PDF has no extractable text" in joined
    # An unchanged bad file is not read, or warned about, again; it is still listed.
    warnings.clear()
    again = index([corpus], warn=warnings.append, cache_dir=cache_dir())
    assert again.indexed == 0 and again.skipped == 4 and warnings == []
    assert {Path(path).name for path, _ in again.skipped_files} == {
        "binary.txt",
        "latin1.md",
        "broken.pdf",
        "empty.pdf",
    }
    assert index_status([corpus], cache_dir=cache_dir()).skipped_files == 4


def test_reindex_is_incremental(corpus: Path) -> None:
    index([corpus], cache_dir=cache_dir())
    (corpus / "notes.md").write_text("# Tidal energy\n\nNow about lagoons.\n", encoding="utf-8")
    (corpus / "sub" / "bees.txt").unlink()
    (corpus / "new.md").write_text("Quokkas live on Rottnest Island.\n", encoding="utf-8")
    status = index_status([corpus], cache_dir=cache_dir())
    assert status.stale_files == 3 and status.indexed_files == 5

    stats = index([corpus], cache_dir=cache_dir())
    assert (stats.indexed, stats.removed, stats.unchanged) == (2, 1, 3)
    local = LocalIndex([corpus], cache_dir=cache_dir())
    assert local.search("quokkas", 3)[0].url.endswith("new.md")
    assert local.search("lagoons", 3)[0].url.endswith("notes.md")
    assert local.search("turbines", 3) == []
    assert local.search("waggle", 3) == []
    assert index_status([corpus], cache_dir=cache_dir()).stale_files == 0

    # Touched but unchanged: hashed, not re-parsed.
    notes = corpus / "notes.md"
    os.utime(notes, ns=(notes.stat().st_atime_ns, notes.stat().st_mtime_ns + 10**9))
    stats = index([corpus], cache_dir=cache_dir())
    assert stats.indexed == 0 and stats.unchanged == 5


def test_progress_reaches_the_total(corpus: Path) -> None:
    calls: list[tuple[int, int]] = []
    index([corpus], progress=lambda done, total: calls.append((done, total)), cache_dir=cache_dir())
    assert calls[-1] == (5, 5)


def test_an_index_file_is_named_by_its_sorted_roots(corpus: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert index_path([corpus], cache_dir()) != index_path([corpus, other], cache_dir())
    assert index_path([corpus, other], cache_dir()) == index_path(
        [other, str(corpus) + "/"], cache_dir()
    )
    assert index_path([corpus], cache_dir()).parent == tmp_path / "cache" / "indexes"


@pytest.mark.parametrize(
    "query",
    ['C++ "quoted', "AND OR NOT", "NEAR(a b)", "col:zebra*", "^-()", "   ", "tidal; DROP TABLE"],
)
def test_user_text_never_breaks_fts(corpus: Path, query: str) -> None:
    """FTS5 syntax in a question is searched as words: no error, only corpus passages, and
    the index still answers afterwards (a "DROP TABLE" dropped nothing)."""
    local = indexed(corpus)
    results = local.search(query, 3)
    files = {str(path.resolve()) for path in corpus.rglob("*") if path.is_file()}
    assert all(result.url in files for result in results)
    assert any("turbines" in result.text for result in local.search("tidal turbines", 3))


def test_query_words_are_quoted_and_ored() -> None:
    assert fts_query(query_words('What is "C++" of the tides?')) == '"c" OR "tides"'
    assert query_words("the of") == ["the", "of"]  # only stopwords: keep them


def test_missing_root_is_a_warning(tmp_path: Path) -> None:
    warnings: list[str] = []
    stats = index([tmp_path / "nope"], warn=warnings.append, cache_dir=cache_dir())
    assert stats.files == 0 and "does not exist" in warnings[0]


def test_unwritable_cache_indexes_in_memory(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("PONDER_CACHE_DIR", str(blocker / "cache"))
    warnings: list[str] = []
    local = LocalIndex([corpus], warn=warnings.append, cache_dir=cache_dir())
    assert str(local.db_path) == ":memory:" and "in memory" in warnings[0]
    local.index()
    assert local.search("waggle", 1)[0].url.endswith("bees.txt")


async def test_local_search_indexes_on_first_use_and_refreshes(corpus: Path) -> None:
    backend = LocalSearch([corpus], refresh_seconds=0, cache_dir=cache_dir())
    assert (await backend.search("waggle dance", 2))[0].url.endswith("bees.txt")
    (corpus / "late.txt").write_text("Axolotls regrow limbs.", encoding="utf-8")
    assert (await backend.search("axolotls", 2))[0].url.endswith("late.txt")


def test_make_search_local_needs_docs() -> None:
    with pytest.raises(SearchError, match="--docs"):
        make_search(Configuration(search="local"), warn=lambda _: None, environment=here())
    with pytest.raises(SearchError, match="None of the document paths exist"):
        make_search(
            Configuration(search="local", docs=["/no/such/dir"]),
            warn=lambda _: None,
            environment=here(),
        )


async def test_local_search_opens_no_socket(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network use during local search: {args}")

    monkeypatch.setattr(socket.socket, "connect", forbidden)
    monkeypatch.setattr(socket.socket, "connect_ex", forbidden)
    monkeypatch.setattr(socket, "getaddrinfo", forbidden)
    monkeypatch.setattr(socket, "create_connection", forbidden)
    backend = make_search(
        Configuration(search="local", docs=[str(corpus)]), warn=print, environment=here()
    )
    results = await backend.search("zebra stripes flies", 3)
    assert results and all(r.origin == "local" for r in results)


def test_files_over_the_size_limit_are_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ponder.services.search.backends.local.indexer as indexer
    import ponder.services.search.backends.local.indexes as local

    docs = tmp_path / "big"
    docs.mkdir()
    (docs / "small.md").write_text("tides and the moon " * 10)
    (docs / "huge.md").write_text("tides " * 400)
    monkeypatch.setattr(indexer, "MAX_FILE_BYTES", 1000)
    warnings: list[str] = []
    stats = local.index([docs], warn=warnings.append, cache_dir=cache_dir())
    assert stats.indexed == 1 and stats.skipped == 1
    assert any("huge.md" in w and "larger than" in w for w in warnings)


DEMO_MODULES = ["json", "csv", "sqlite3", "pathlib", "itertools", "functools", "heapq", "bisect"]


def test_question_words_do_not_outrank_the_topic_on_real_documentation(tmp_path: Path) -> None:
    """'do' and 'i' are in every pydoc page; the demo question must rank on json, read, files."""
    from ponder.testing.corpus import pydoc_corpus

    pydoc_corpus(tmp_path / "pydoc", DEMO_MODULES)
    hits = indexed(tmp_path / "pydoc").search("How do I read and write JSON files in Python?", 3)
    assert Path(hits[0].url).stem == "json", [Path(h.url).stem for h in hits]
    assert query_words("How do I read JSON files?") == ["read", "json", "files"]
    assert query_words("Wie lese ich JSON?") == ["lese", "json"]  # German function words too


def test_the_same_text_in_two_files_fills_one_result_slot(tmp_path: Path) -> None:
    """A copy in another folder, and a Markdown page with its HTML rendering, count once;
    the better-ranked file keeps the slot and the next slot goes to another text."""
    from markdown_it import MarkdownIt

    from ponder.testing.corpus import pydoc_corpus

    docs = tmp_path / "docs"
    pydoc_corpus(docs / "pydoc", ["json", "csv", "pickle", "marshal"])
    (docs / "copy").mkdir()
    shutil.copy(docs / "pydoc" / "json.txt", docs / "copy" / "json.txt")
    notes = (
        "# Reading JSON\n\nUse `json.load(fp)` to read a JSON document from a file object, and "
        "`json.dump(obj, fp)` to write one. Both take an open *text* file.\n\nThe reader "
        "turns JSON objects into dicts and arrays into lists, unless hooks say otherwise.\n"
    )
    (docs / "notes.md").write_text(notes)
    (docs / "notes.html").write_text(f"<html><body>{MarkdownIt().render(notes)}</body></html>")
    # A third text about JSON, to take the slot a copy gives up.
    (docs / "settings.md").write_text("# Settings\n\nThe settings are one JSON document.\n")
    hits = indexed(docs).search("read a JSON document from a file", 4)
    names = [str(Path(h.url).relative_to(docs)) for h in hits]
    assert sum(n.endswith("json.txt") for n in names) == 1, names
    assert sum(n.startswith("notes.") for n in names) == 1, names
    assert len(names) == len(set(names)) and len(names) >= 3, names


# Pages that say "send", "socket" or "pickle" often: pydoc mentions pickle in every class.
WIRE_MODULES = ["pickle", "socket", "ssl", "select", "selectors", "copyreg", "shelve", "json"]
WIRE_MODULES += ["marshal", "struct", "io", "base64", "zlib", "csv", "array", "queue"]


def test_a_page_the_query_names_is_found_however_common_its_name(tmp_path: Path) -> None:
    """ "pickled" is in most pydoc pages ("Helper for pickle"), "send" in two: the pages that
    say "send" must not take every candidate slot, and pickle's page, which the query
    names, comes first."""
    from ponder.testing.corpus import pydoc_corpus

    pydoc_corpus(tmp_path / "pydoc", WIRE_MODULES)
    local = indexed(tmp_path / "pydoc")
    found = [Path(h.url).stem for h in local.search("send pickled objects", 5)]
    assert found[0] == "pickle" and "socket" in found, found
    # A page named by a word is lifted, not put above a page that matches far better.
    found = [Path(h.url).stem for h in local.search("send data over a socket with select", 5)]
    assert found[0] == "socket", found


def test_only_a_page_s_name_lifts_it_not_any_word_of_its_title(tmp_path: Path) -> None:
    """Over the Python docs' library and language reference: a query word that is a page's
    name lifts that page ("threads": threading), a word that is only in its title does not
    ("groups" and grp's "The group database", "patterns" and fnmatch's "Unix filename
    pattern matching")."""
    for folder in ("library", "reference"):
        shutil.copytree(python_docs() / folder, tmp_path / folder)
    local = indexed(tmp_path)

    def first(query: str) -> str:
        return Path(local.search(query, 3)[0].url).stem

    assert first("What are exception groups and the except* syntax?") != "grp"
    assert first("How does the match statement work with class patterns?") not in (
        "fnmatch",
        "glob",
    )
    assert first("How do I program using threads?") in ("threading", "_thread")


def test_a_file_s_second_passage_adds_the_words_its_first_lacks(tmp_path: Path) -> None:
    """The demo's question over its corpus: json's best passage is about dump() (write);
    the second must hold what it lacks (load(), read), not more of dump()'s words."""
    from ponder.testing.corpus import pydoc_corpus

    modules = ["json", "csv", "sqlite3", "pathlib", "itertools", "functools", "heapq", "bisect"]
    pydoc_corpus(tmp_path / "pydoc", modules)
    hits = indexed(tmp_path / "pydoc").search("How do I read and write JSON files in Python", 3)
    page = next(h for h in hits if Path(h.url).stem == "json")
    assert "dump(" in page.content and "load(" in page.content, page.content


def test_a_file_indexed_after_a_search_is_named_by_the_next(tmp_path: Path) -> None:
    """Which files a word names is read once and again only when files change, by any
    process's indexing: a file added, renamed or gone."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "harbour.md").write_text("Tides at the harbour rise twice a day.\n")
    local = indexed(docs)
    assert local.ranking._named_by(["tides"]) == {"tides": []}
    (docs / "tide.md").write_text("A tide table.\n")
    other = LocalIndex([docs], cache_dir=cache_dir())  # another process indexes
    other.index()
    other.close()
    assert local.ranking._named_by(["tides"]) == {"tides": [str(docs / "tide.md")]}
    (docs / "tide.md").unlink()
    local.index()
    assert local.ranking._named_by(["tides"]) == {"tides": []}
