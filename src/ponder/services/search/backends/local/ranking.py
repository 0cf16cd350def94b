"""Which files and passages of one local index (or of a scope in it) answer a query.

Files are scored by BM25 over their passages (FTS5, the title weighted double) on the
words that tell files apart, and, with semantic search on, by their passages' nearness to
the query's vector; a chosen file's passages by BM25 on the query's words. :mod:`.results`
fuses the scores and chooses the files, of this index alone or of several together.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from ponder.services.search.backends.local.scope import Scope
from ponder.services.search.backends.local.vectors import VectorStore
from ponder.services.text.passages import covering_order
from ponder.services.text.words import STOPWORDS, stem

Warn = Callable[[str], None]
Passage = tuple[str, int, int, int | None, str]  # title, start, end, page, text

# Files by their best passage. The window counts files, not passages: counted in passages,
# one part of a query ("send" in "send pickled objects") fills it with one page's passages
# and the page about the other part never becomes a candidate.
_QUERY = """
WITH hit AS MATERIALIZED (
    SELECT rowid AS id, bm25(passages, 2.0, 1.0) AS score FROM passages WHERE passages MATCH ?
)
SELECT f.path, min(hit.score) AS best FROM hit JOIN chunks AS c ON c.id = hit.id
JOIN files AS f ON f.id = c.file_id {where} GROUP BY f.id ORDER BY best LIMIT ?
"""
# The best passages of one file for a query.
_IN_FILE = """
SELECT f.title, c.start, c.end, c.page, passages.body
FROM passages JOIN chunks AS c ON c.id = passages.rowid JOIN files AS f ON f.id = c.file_id
WHERE passages MATCH ? AND f.path = ? ORDER BY bm25(passages, 2.0, 1.0) LIMIT ?
"""
_PASSAGE = """
SELECT f.title, c.start, c.end, c.page, p.body
FROM chunks AS c JOIN passages AS p ON p.rowid = c.id JOIN files AS f ON f.id = c.file_id
WHERE c.id = ?
"""
_ABOUT = "SELECT authors, date, part FROM files WHERE path = ?"
_INDEXED_PATHS = "SELECT f.path FROM files AS f WHERE f.skipped IS NULL {and_scope}"
_FILES_VERSION = "SELECT value FROM meta WHERE key = 'files_version'"  # triggers bump it
_FILE_OF = "SELECT f.path FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE c.id = ?"
_COUNT_MATCHES = "SELECT count(*) FROM (SELECT 1 FROM passages WHERE passages MATCH ? LIMIT ?)"
_COUNT_FILES = (
    "SELECT count(*) FROM (SELECT DISTINCT c.file_id FROM passages JOIN chunks AS c "
    "ON c.id = passages.rowid WHERE passages MATCH ? LIMIT ?)"
)
_COUNT_PASSAGES = "SELECT count(*) FROM chunks"
_COUNT_INDEXED = "SELECT count(DISTINCT file_id) FROM chunks"
# The same counts within a scope (a sub-folder's view of the index: .scope).
_IN_SCOPE = "JOIN chunks AS c ON c.id = passages.rowid JOIN files AS f ON f.id = c.file_id"
_SCOPED_MATCHES = (
    f"SELECT count(*) FROM (SELECT 1 FROM passages {_IN_SCOPE} "
    "WHERE passages MATCH ? AND {scope} LIMIT ?)"
)
_SCOPED_FILES = (
    f"SELECT count(*) FROM (SELECT DISTINCT c.file_id FROM passages {_IN_SCOPE} "
    "WHERE passages MATCH ? AND {scope} LIMIT ?)"
)
_SCOPED_PASSAGES = (
    "SELECT count(*) FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE {scope}"
)
_SCOPED_INDEXED = (
    "SELECT count(DISTINCT c.file_id) FROM chunks AS c JOIN files AS f ON f.id = c.file_id "
    "WHERE {scope}"
)
_SCOPED_CHUNKS = "SELECT c.id FROM chunks AS c JOIN files AS f ON f.id = c.file_id WHERE {scope}"
_COMMON_FRACTION = 3  # a word in more than 1/3 of passages barely moves BM25
_PRUNE_FROM = 2000  # passages; below this, every word is cheap enough to score
_FILE_SPREAD_FROM = 4  # files; in a smaller folder every word may matter
_NAMED_FILES = 2  # a name more files than this bear names a kind of file, not one topic
_NAMED_LIFT = 0.5  # of the best score, added to a page the query names
_COVER_POOL = 4  # a file's best passages, per passage shown, that may be shown


def query_words(text: str) -> list[str]:
    """Distinct lower-case words of a query, stopwords dropped unless nothing else is left."""
    words = list(dict.fromkeys(re.findall(r"\w+", text.lower())))
    return ([w for w in words if w not in STOPWORDS] or words)[:32]


def file_names(path: str) -> set[str]:
    """The stems a file is named by: its name without the extension and, for a dotted name
    (``xml.etree.ElementTree``, ``os.path``), each part; leading underscores off
    (``_thread``)."""
    name = PurePath(path).name.lower()
    whole = name.rsplit(".", 1)[0] if "." in name else name
    parts = {whole, *whole.split(".")}
    return {stem(part.strip("_")) for part in parts if len(part.strip("_")) > 1}


def fts_query(words: Sequence[str]) -> str:
    """A safe FTS5 query: every word quoted (so no user text is FTS syntax), ORed."""
    return " OR ".join(f'"{w}"' for w in words)


@dataclass
class FileAbout:
    """A file's own metadata, as its reader found it."""

    authors: list[str] = field(default_factory=list)
    date: str | None = None
    part: str = "page"  # what its page numbers count: pages, slides, sheets, chapters


@dataclass
class Candidates:
    """One index's files for a query: BM25's scores (higher better) and, with semantic
    search on, each file's near passages (ids, nearest first) and its nearest similarity."""

    ranking: Ranking
    within: str  # the FTS query that picks a chosen file's passages
    words: list[str] = field(default_factory=list)  # its words
    lexical: dict[str, float] = field(default_factory=dict)
    near: dict[str, list[int]] = field(default_factory=dict)
    similarity: dict[str, float] = field(default_factory=dict)


class Ranking:
    """Queries over one open index, or the part of it a ``scope`` names; its owner holds
    the index's lock around each."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        vectors: VectorStore,
        warn: Warn,
        scope: Scope | None = None,
    ) -> None:
        self._conn = conn
        self.vectors = vectors
        self._warn = warn
        self.scope = scope
        self._where, self._params = scope.where() if scope else ("", ())
        self._names: dict[str, list[str]] = {}  # a name's stem -> the files it names
        self._names_version: object = object()  # no version read yet

    def candidates(
        self, words: list[str], limit: int, vector: list[float] | None, model: str | None
    ) -> Candidates:
        cheap = self._drop_frequent(words) if words else []
        near, similarity = self._nearest_by_file(vector, model, limit)
        within = fts_query(cheap) if cheap else ""
        lexical = self._lexical_files(cheap, limit)
        if self.scope is not None and self.scope.links_bounded:
            # A link in the part asked for, to a file elsewhere in the folder (an index of
            # a parent folder holds both): that file is not the caller's to read.
            lexical = {p: s for p, s in lexical.items() if self.scope.admits(p)}
            near = {p: ids for p, ids in near.items() if self.scope.admits(p)}
        return Candidates(self, within, cheap, lexical, near, similarity)

    def _lexical_files(self, words: list[str], limit: int) -> dict[str, float]:
        """Files in the order of their best BM25 passage, each with its score, higher better.

        A page the query names (a word is its file's name, or a dotted part of it, and no
        more than two files bear that name) is lifted by half the best score. BM25 weighs
        titles double, but a name that every other page mentions ("Helper for pickle" in
        each class of a pydoc page) weighs little: "send pickled objects" ranked pickle's
        page ninth, below pages that only say "send". Half the best lifts such a page above
        those, not above a page that matches far better ("a secret at the terminal":
        getpass, not secrets). Only a name lifts, not any word of a title: a descriptive
        title word is no more telling than the body's ("exception groups" lifted ``grp``,
        "The group database"; "class patterns" lifted ``fnmatch`` and ``glob``).
        """
        best: dict[str, float] = {}
        if not words:
            return best
        named_by = self._named_by(words)
        telling = self._discriminating(words, {w for w, pages in named_by.items() if pages})
        query = _QUERY.format(where=f"WHERE {self._where}" if self.scope else "")
        for path, score in self._conn.execute(query, (fts_query(telling), *self._params, limit)):
            best.setdefault(path, -score)  # FTS5's bm25() is negative, lower better
        named = {path for w in telling for path in named_by.get(w, [])}
        lift = max(best.values(), default=0.0) * _NAMED_LIFT
        return dict(
            sorted(
                ((path, score + lift * (path in named)) for path, score in best.items()),
                key=lambda item: -item[1],
            )
        )

    def _nearest_by_file(
        self, vector: list[float] | None, model: str | None, limit: int
    ) -> tuple[dict[str, list[int]], dict[str, float]]:
        """Files in the order of their nearest passage, each with its near passages' ids,
        nearest first, and with its nearest passage's similarity. Vector trouble leaves
        keyword search be."""
        if vector is None or model is None:
            return {}, {}
        try:
            among = self._scoped_chunks() if self.scope else None
            nearest = self.vectors.nearest(vector, model, limit, among=among)
        except (OSError, ValueError, MemoryError) as exc:
            self._warn(f"Semantic search failed for this query ({exc}); keyword search goes on.")
            return {}, {}
        near: dict[str, list[int]] = {}
        similarity: dict[str, float] = {}
        for chunk_id, score in nearest:
            row = self._conn.execute(_FILE_OF, (chunk_id,)).fetchone()
            if row is not None:
                near.setdefault(row[0], []).append(chunk_id)
                similarity.setdefault(row[0], score)
        return near, similarity

    def passages_in(
        self, path: str, candidates: Candidates, near: list[int], per_file: int
    ) -> list[Passage]:
        """A file's best passages: BM25's and the nearest, alternately, each once. BM25's
        after its first are those that add most of the query's words the ones before lack
        (``covering_order``), among its ``_COVER_POOL`` times as many best."""
        lexical = []
        if candidates.within:
            pool = per_file * _COVER_POOL
            found = self._conn.execute(_IN_FILE, (candidates.within, path, pool)).fetchall()
            ranks = [float(len(found) - i) for i in range(len(found))]  # BM25's order
            order = covering_order([p[4] for p in found], " ".join(candidates.words), ranks)
            lexical = [found[i] for i in order[:per_file]]
        semantic = [self._conn.execute(_PASSAGE, (chunk_id,)).fetchone() for chunk_id in near]
        merged: dict[tuple[int, int], Passage] = {}
        for pair in itertools.zip_longest(lexical, semantic[:per_file]):
            for passage in pair:
                if passage is not None:
                    merged.setdefault((passage[1], passage[2]), passage)
        return list(merged.values())[:per_file]

    def about(self, path: str) -> FileAbout:
        """What a file says of itself: its authors, date, and what its parts are."""
        row = self._conn.execute(_ABOUT, (path,)).fetchone()
        if row is None:
            return FileAbout()
        authors, date, part = row
        return FileAbout([a for a in (authors or "").split("\n") if a], date, part or "page")

    def _discriminating(self, words: list[str], names: set[str]) -> list[str]:
        """The words that tell files apart.

        A word found in half of the files or more ("python" across a folder of Python
        docs, "files" in every page footer) matches every candidate; left in, several of
        them outscore the one rare word that names the topic. A word in ``names`` (it names
        a page) stays however spread. Counting stops at half the files, so this stays
        cheap. When every word is that common, the less spread half of them is used:
        "create classes with automatically generated __init__ and __repr__" is all words of
        most pydoc pages, and with every word the pages whose generated-page notice says
        "automatically generated" came first, dataclasses' fourth of 82.
        """
        if len(words) < 2:
            return words
        files = self._count(_SCOPED_INDEXED if self.scope else _COUNT_INDEXED)
        spread = {w: self._files_with(w, (files + 1) // 2) for w in words}
        found = [w for w in words if spread[w]]
        kept = [
            w for w in found if files < _FILE_SPREAD_FROM or 2 * spread[w] < files or w in names
        ]
        if kept or len(found) < 2:
            return kept or found or words
        spread = {w: self._files_with(w, files) for w in found}
        least = sorted(found, key=lambda w: spread[w])[: -(-len(found) // 2)]
        return [w for w in found if w in least]

    def _named_by(self, words: list[str]) -> dict[str, list[str]]:
        """Each word's files, when it is the name of at most ``_NAMED_FILES`` of them: what
        those files are about, however many others mention it ("pickle" in every pydoc
        page's "Helper for pickle"). Words and names meet by their stems ("threads",
        ``threading``)."""
        names = self._file_names()
        return {w: names.get(stem(w), []) for w in words}

    def _file_names(self) -> dict[str, list[str]]:
        """The indexed files by the stems they are named by, names that more than
        ``_NAMED_FILES`` bear left out; read again only when the files changed (any
        process's indexing bumps ``files_version``)."""
        version = self._conn.execute(_FILES_VERSION).fetchone()
        if version != self._names_version:
            query = _INDEXED_PATHS.format(and_scope=f"AND {self._where}" if self.scope else "")
            names: dict[str, list[str]] = {}
            for (path,) in self._conn.execute(query, self._params):
                for name in file_names(path):
                    names.setdefault(name, []).append(path)
            self._names = {n: paths for n, paths in names.items() if len(paths) <= _NAMED_FILES}
            self._names_version = version
        return self._names

    def _drop_frequent(self, words: list[str]) -> list[str]:
        """On a big index, leave out words found in a third of the passages: they barely
        move BM25, yet scoring every passage they match is what makes a query slow.
        Counting stops at the threshold."""
        if len(words) < 2:
            return words
        passages = self._count(_SCOPED_PASSAGES if self.scope else _COUNT_PASSAGES)
        if passages < _PRUNE_FROM:
            return words
        limit = passages // _COMMON_FRACTION
        kept = [
            w for w in words if self._matches(_SCOPED_MATCHES, _COUNT_MATCHES, w, limit) < limit
        ]
        return kept or words

    def _files_with(self, word: str, limit: int) -> int:
        """In how many files ``word`` occurs, counting no further than ``limit``."""
        return self._matches(_SCOPED_FILES, _COUNT_FILES, word, limit)

    def _matches(self, scoped: str, whole: str, word: str, limit: int) -> int:
        if self.scope:
            query, params = scoped.format(scope=self._where), self._params
        else:
            query, params = whole, ()
        return int(self._conn.execute(query, (fts_query([word]), *params, limit)).fetchone()[0])

    def _count(self, query: str) -> int:
        return int(self._conn.execute(query.format(scope=self._where), self._params).fetchone()[0])

    def _scoped_chunks(self) -> list[int]:
        query = _SCOPED_CHUNKS.format(scope=self._where)
        return [row[0] for row in self._conn.execute(query, self._params)]
