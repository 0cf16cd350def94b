"""Questions with several parts: each part found in code, searched, covered and quoted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import over_corpus

from ponder import Report, stream
from ponder.services.research.aspects import (
    Aspect,
    aspects_for,
    aspects_of,
    carry,
    covered_in_report,
    uncovered,
)
from ponder.services.research.vetting import VettedQueries
from ponder.testing import ChatRequest, Rig, ScriptedBackend
from ponder.testing.corpus import pydoc_corpus, stdlib_modules
from ponder.testing.replies import restated_sources

QUESTION = "How do I send pickled objects over a socket?"


@pytest.fixture
def stdlib(tmp_path: Path) -> Path:
    """pydoc's pages of both parts' modules, among neighbours that share their words."""
    neighbours = ["json", "marshal", "shelve", "selectors", "copyreg", "struct", "ssl", "io"]
    pydoc_corpus(tmp_path, ["pickle", "socket", *neighbours, "base64", "zlib", "csv", "queue"])
    return tmp_path


def parts(question: str) -> list[str]:
    return [a.query for a in aspects_of(question)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (QUESTION, ["send pickled objects", "socket"]),
        ("How do I keep a sorted list of dates with bisect?", ["keep sorted list dates", "bisect"]),
        (
            "How do I read an XML file and write its rows to CSV?",
            ["read xml file", "write rows csv"],
        ),
        ("Redis vs Memcached for caching", ["redis", "memcached caching"]),
        ("Compare SQLite and PostgreSQL", ["sqlite", "postgresql"]),
        ("What is the difference between a list and a tuple?", ["list", "tuple"]),
        ("Parse the log, then e-mail the errors", ["parse log", "e mail errors"]),
        (  # the things "with" brings in, listed with "and", are one part
            "How do I create classes with automatically generated __init__ and __repr__?",
            ["create classes", "automatically generated __init__ __repr__"],
        ),
    ],
)
def test_joined_and_compared_questions_split_into_their_parts(
    question: str, expected: list[str]
) -> None:
    assert parts(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "How do tides work?",
        # a lone verb before "and" shares the next part's object: one thing is asked
        "How do I read and write JSON files in Python?",
        "How do I compress and decompress files in the gzip format?",
        "How can I run functions concurrently in a pool of threads or processes?",
    ],
)
def test_a_question_with_one_part_has_no_aspects(question: str) -> None:
    assert parts(question) == []


def test_a_finding_covers_the_part_it_is_about_not_a_word_it_shares() -> None:
    aspects = aspects_of(QUESTION)
    summary = (
        "- socket.send() sends data to the socket; it returns the number of bytes sent [2]\n"
        "- Read for 'pickle': 'pickle' [1]"  # a reading note finds nothing
    )
    # "send" alone is not the first part (send pickled objects): the socket finding covers
    # only the socket.
    assert [a.query for a in uncovered(aspects, summary)] == ["send pickled objects"]
    summary += "\n- pickle.dumps() returns the pickled representation of the object [1]"
    assert uncovered(aspects, summary) == []


def test_report_coverage_counts_a_quote_with_its_attribution() -> None:
    aspects = aspects_of(QUESTION)
    report = (
        "# Title\n\n> Return the pickled representation of the object obj as a bytes object.\n"
        ">\n> — pickle [1]\n\nSockets send data.\n\n## Sources\n\n1. socket [2]\n"
    )
    # The quote and its [1] are one passage; the uncited line and the Sources list count not.
    assert covered_in_report(aspects, report) == 1


async def _searched(question: str, rig: Rig, corpus: Path, **extra: Any) -> tuple[Report, list]:
    rounds: list[list[str]] = []
    settings = over_corpus(rig, corpus, mode="loop", **extra)
    async for item in stream(question, **settings):
        if isinstance(item, Report):
            report = item
        elif item.kind == "round_start":
            rounds.append(item.data["queries"])
    return report, rounds


async def test_each_part_gets_its_own_search_in_round_one(
    rig: Rig, scripted: ScriptedBackend, stdlib: Path
) -> None:
    # The model plans the whole question again in other words: both slots go to the parts.
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": ["pickle socket example"]}
    _, rounds = await _searched(QUESTION, rig, stdlib, max_loops=1, queries_per_round=3)
    assert rounds[0] == [QUESTION, "send pickled objects", "socket"]


async def test_a_capable_models_plan_for_each_part_is_kept(
    rig: Rig, scripted: ScriptedBackend, stdlib: Path
) -> None:
    planned = ["pickle.dumps an object to bytes", "socket.sendall bytes to a connected peer"]
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": planned}
    _, rounds = await _searched(QUESTION, rig, stdlib, max_loops=1, queries_per_round=3)
    assert rounds[0] == [QUESTION, *planned]


def pickle_only(request: ChatRequest) -> dict[str, Any]:
    """A model that summarises the sources but says nothing of sockets."""
    findings = restated_sources(request, limit=10)["findings"]
    return {"findings": [f for f in findings if "socket" not in f["statement"].lower()]}


async def test_an_uncovered_part_keeps_the_loop_going_and_is_searched_next(
    rig: Rig, scripted: ScriptedBackend, stdlib: Path
) -> None:
    scripted.overrides["QueryPlan"] = {"rationale": "r", "queries": ["pickle protocol"]}
    scripted.overrides["SummaryUpdate"] = pickle_only
    scripted.overrides["Reflection"] = {
        "is_sufficient": True,
        "knowledge_gap": "",
        "follow_up_queries": ["pickle protocol versions"],
        "scope": "focused",
        "subtopics": [],
    }
    report, rounds = await _searched(
        QUESTION, rig, stdlib, max_loops=2, queries_per_round=2, min_findings_to_stop=1
    )
    # Round 1 had room for one planned query: the model's, aimed at the first part.
    assert rounds[0] == [QUESTION, "pickle protocol"]
    # "Sufficient", with findings enough, yet nothing about the socket: a second round,
    # which searches the socket first; max_loops stays exact.
    assert report.stats.rounds == 2 and report.stats.sufficient_overruled == 1
    assert rounds[1][0] == "socket"


async def test_the_extractive_report_quotes_a_source_for_each_part(
    rig: Rig, scripted: ScriptedBackend, stdlib: Path
) -> None:
    scripted.overrides["text"] = ""  # no prose: the report is built from notes and sources
    report, _ = await _searched(QUESTION, rig, stdlib, max_loops=1)
    assert report.stats.extractive_report
    cited = {Path(s.url).stem for s in report.cited_sources()}
    assert {"pickle", "socket"} <= cited
    assert report.stats.aspects == 2 and report.stats.aspects_covered == 2


async def test_a_questions_parts_are_found_once_and_carried_to_every_round_and_the_report(
    rig: Rig, scripted: ScriptedBackend, stdlib: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round one's planning finds the parts; each reflection and the report read them from
    the state. A follow-up on the thread is a question of its own, with parts of its own."""
    from ponder.api import stream_followup

    found: list[str] = []

    def finding(question: str) -> list[Aspect]:
        found.append(question)
        return aspects_of(question)

    monkeypatch.setattr("ponder.nodes.generate_query.aspects_of", finding)
    monkeypatch.setattr("ponder.services.research.aspects.aspects_of", finding)
    scripted.overrides["SummaryUpdate"] = pickle_only  # the socket stays a gap: a 2nd round
    report, rounds = await _searched(QUESTION, rig, stdlib, max_loops=2)
    assert len(rounds) == 2 and report.stats.aspects == 2
    assert found == [QUESTION]
    follow_up = "How do I keep a sorted list of dates with bisect?"
    async for _item in stream_followup(report.thread_id, follow_up):
        pass
    assert found == [QUESTION, follow_up]


def test_parts_carried_in_the_state_are_read_unless_they_are_of_another_question() -> None:
    expected = aspects_of(QUESTION)
    assert aspects_for(QUESTION, carry(QUESTION, expected[:1])) == expected[:1]  # not anew
    malformed = {"question": QUESTION, "aspects": [{"text": 1}]}
    for carried in (None, carry("How do tides work?", []), malformed):
        assert aspects_for(QUESTION, carried) == expected


def test_planned_queries_need_not_be_aspects_when_the_question_has_one_part() -> None:
    from ponder.services.research.aspects import with_aspects

    planned = VettedQueries(["moon gravity", "tide tables"], replaced=0, own=2)
    assert with_aspects(planned, [], [], [], 2) == ["moon gravity", "tide tables"]


def whole_pages(modules: list[str]) -> list[Any]:
    """Sources numbered 1.. in order, each one pydoc page read whole."""
    from ponder.testing.corpus import pydoc_text

    return [
        {
            "number": i,
            "url": f"/d/{m}.txt",
            "title": m,
            "origin": "local",
            "passages": [pydoc_text(m)],
            "locations": [""],
        }
        for i, m in enumerate(modules, start=1)
    ]


def test_a_question_of_common_words_finds_its_page_first_and_quotes_it_first(
    tmp_path: Path,
) -> None:
    """Every word of this question is in half of pydoc's pages or more ("__repr__" in each
    class, "automatically generated" in the notice each page opens with). Search ranks by
    the less spread half of them, so dataclasses' page is found first (fourth to seventh
    before, behind pages that matched on their notice), and the report quotes the page
    found first, though among the few pages read the question's words look rare."""
    from ponder.services.report.extractive import quoted_sources
    from ponder.services.search.backends.local.index import LocalIndex

    topic = "How do I create classes with automatically generated __init__ and __repr__?"
    pydoc_corpus(tmp_path / "docs", stdlib_modules(with_submodules=False))
    index = LocalIndex([tmp_path / "docs"], db_path=tmp_path / "index.sqlite")
    index.index()
    read: dict[str, list[str]] = {}
    try:
        for query in [topic, *(a.query for a in aspects_of(topic))]:  # as round 1 searches
            for result in index.search(query, 5):
                read.setdefault(result.url, []).append(result.content)
    finally:
        index.close()
    sources = [
        {
            "number": n,
            "url": url,
            "title": Path(url).stem,
            "origin": "local",
            "passages": passages,
            "locations": [""] * len(passages),
        }
        for n, (url, passages) in enumerate(read.items(), start=1)
    ]
    assert sources[0]["title"] == "dataclasses"
    chosen = quoted_sources(sources, topic, 4, aspects_of(topic))  # type: ignore[arg-type]
    assert chosen[0] == (sources[0], topic)


def test_a_part_whose_best_page_is_quoted_already_gets_the_next_page_about_it() -> None:
    """tarfile's page is the best for both parts of the question (it says much about gzip
    compression), so its quote is on the whole question; the gzip part is quoted from the
    gzip page, on what the part asks."""
    from ponder.services.report.extractive import most_relevant, quoted_sources
    from ponder.testing.corpus import pydoc_text

    def read_at(module: str, marker: str) -> str:
        lines = pydoc_text(module).splitlines()
        start = next(i for i, line in enumerate(lines) if marker in line)
        return "\n".join(lines[start : start + 14])

    topic = "How do I pack files into a tar archive and compress it with gzip?"
    sources = whole_pages(["tarfile", "gzip", "shutil", "zipfile"])
    read = [["gzopen(", "open(name=None"], ["BadGzipFile"], ["make_archive("], ["class ZipFile("]]
    for source, markers in zip(sources, read, strict=True):
        source["passages"] = [read_at(source["title"], m) for m in markers]
    whole, pack, gzip = [
        most_relevant(sources, q, 1)[0]["title"]
        for q in (topic, *(a.query for a in aspects_of(topic)))
    ]
    assert whole == gzip == "tarfile" and pack == "shutil"
    chosen = [
        (source["title"], on) for source, on in quoted_sources(sources, topic, 3, aspects_of(topic))
    ]
    assert chosen == [
        ("tarfile", topic),
        ("shutil", aspects_of(topic)[0].query),
        ("gzip", aspects_of(topic)[1].query),
    ]


def test_a_cut_text_is_completed_with_quotes_of_the_relevant_pages_it_does_not_cite() -> None:
    """A weak model's kept beginning cites one page; the page most about the question,
    known only by what was read of it, is quoted after the cut, under the note."""
    from ponder.services.report.extractive import completion

    topic = "How can I parse command-line options and arguments in my script?"
    sources = whole_pages(["getopt", "argparse", "shlex"])
    written = "Options can be parsed with getopt, which follows the Unix conventions [1]."
    done = completion(
        written, "", topic, "a sentence is repeated", sources, aspects=aspects_of(topic)
    )
    head, rest = done.split("*The model's text was cut here", 1)
    assert head.strip() == written
    assert "> — argparse [2]" in rest and "[1]" not in rest


def test_with_no_finding_at_all_a_part_searched_already_is_not_searched_again() -> None:
    from ponder.services.research.aspects import worth_searching

    aspects = aspects_of(QUESTION)
    notes = "- Read for 'socket': 'socket' [1]"  # the model summarised nothing
    assert worth_searching(aspects, notes, ["socket"]) == [aspects[0]]
    found = notes + "\n- socket.send() sends data to the socket and returns the count [1]"
    gaps = uncovered(aspects, found)
    assert worth_searching(gaps, found, ["send pickled objects"]) == gaps == [aspects[0]]
