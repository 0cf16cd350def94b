"""What a finished run kept of a generated report, judged against its ground truth.

- kept whole: the final report's body is the model's text — not cut, not replaced by an
  extractive report — code blocks byte for byte and prose word for word. Citations are
  what ponder's citation check may change (re-point, add, remove, mark ``[unsupported]``),
  so they are left out of this comparison and judged apart; ``citations_kept`` says
  whether every citation also names the same page as the model's;
- citation precision: of the cited sentences in the final report, the share whose
  citations all name a page that holds the sentence;
- read: cited sentences whose text is in what the run read of their page (its passages).
  Only those can a check against what was read confirm, so "supported" is those cited
  correctly in the model's text: a supported sentence that the final report cites wrongly
  or not at all lost its citation (dropped ones counted apart).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ponder.testing.prose.model import GeneratedReport, Unit, contains, tokens
from ponder.testing.prose.writer import Written

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_CITES = re.compile(r"(?:[ \t]*\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\])+")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"[ \t]+([.,;:])")


@dataclass
class Assessment:
    seed: int
    words: int
    pages: int
    misdirected: float
    kept_whole: bool
    prose_kept: bool
    citations_kept: bool
    code_kept: bool
    extractive: bool
    generations_stopped: int
    texts_cut: int
    citations_repointed: int
    citations_added: int
    sentences_unsupported: int
    retries: int
    discarded: list[str]
    warnings: list[str]
    cited: int = 0  # cited sentences in the final report that could be placed
    correct: int = 0  # …whose citations all name a page that holds them
    unplaced: int = 0  # cited text found in no page
    supported: int = 0  # sentences cited correctly in the model's text, and read
    supported_wrong: int = 0  # …cited wrongly in the final report
    supported_uncited: int = 0  # …left uncited
    supported_dropped: int = 0  # …not in the final report at all
    misdirected_in: int = 0  # sentences the model cited wrongly
    misdirected_fixed: int = 0  # …cited correctly in the final report
    read: int = 0  # cited sentences in the model's text whose words the run read
    cited_in: int = 0
    wall_seconds: float = 0.0
    report_seconds: float = 0.0
    unnumbered_pages: list[int] = field(default_factory=list)


def assess(written: Written) -> Assessment:
    report, result = written.report, written.result
    page_of = {e.file_name: i for i, e in enumerate(report.pages)}
    by_registry = {s.registry_number: page_of.get(Path(s.url).name, -1) for s in result.sources}
    by_report = {s.number: page_of.get(Path(s.url).name, -1) for s in result.cited_sources()}
    model_text = written.writer.written[-1] if written.writer.written else ""
    expected, expected_code = canonical(model_text, by_registry)
    actual, actual_code = canonical(_without_sources(result.markdown), by_report)
    stats = result.stats
    outcome = Assessment(
        seed=report.seed,
        words=report.words(),
        pages=len(report.pages),
        misdirected=report.misdirected,
        kept_whole=_kept(expected, actual, stats) and expected_code == actual_code,
        prose_kept=_kept(expected, actual, stats),
        citations_kept=expected == actual,
        code_kept=expected_code == actual_code,
        extractive=stats.extractive_report,
        generations_stopped=stats.generations_stopped,
        texts_cut=stats.texts_cut,
        citations_repointed=stats.citations_repointed,
        citations_added=stats.citations_added,
        sentences_unsupported=stats.sentences_unsupported,
        retries=stats.retries,
        discarded=written.discarded,
        warnings=list(stats.warnings),
        wall_seconds=written.wall_seconds,
        report_seconds=round(stats.node_seconds.get("finalize_summary", 0.0), 3),
        unnumbered_pages=[i for i in range(len(report.pages)) if i not in written.writer.numbers],
    )
    _score_citations(outcome, report, _without_sources(result.markdown), by_report, written)
    _score_reading(outcome, report, written)
    return outcome


def canonical(markdown: str, pages: Mapping[int, int]) -> tuple[list[str], list[str]]:
    """A report's prose lines, each citation written as the pages it names, and its code
    blocks; its title line left out, whitespace and ponder's "word ." clean-up evened."""
    code = [m.group(1).rstrip("\n") for m in _FENCE.finditer(markdown)]
    lines = [" ".join(x.split()) for x in _FENCE.sub("", markdown).splitlines()]
    lines = [x for x in lines if x]
    if lines and lines[0].startswith("# "):
        lines = lines[1:]

    def as_pages(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
        return " {" + ",".join(str(pages.get(n, "?")) for n in numbers) + "}"

    prose = [_SPACE_BEFORE_PUNCTUATION.sub(r"\1", _CITES.sub(as_pages, x)) for x in lines]
    return prose, code


def _uncited(line: str) -> str:
    line = re.sub(r" \{[\d,?-]*\}| ?\[unsupported\]", "", line)
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", line)


def _kept(expected: list[str], actual: list[str], stats: object) -> bool:
    """The model's prose, word for word, left as it wrote it: neither cut nor replaced."""
    if getattr(stats, "extractive_report", False) or getattr(stats, "texts_cut", 0):
        return False
    return [_uncited(x) for x in expected] == [_uncited(x) for x in actual]


def _without_sources(markdown: str) -> str:
    head, _, _ = markdown.rpartition("\n## Sources\n")
    return head or markdown


def truth(report: GeneratedReport, unit: Unit) -> set[int]:
    """The pages that hold a unit's words: its own, and any other that says the same."""
    words = tokens(unit.text)
    return {unit.page} | {i for i, e in enumerate(report.pages) if contains(e.words, words)}


def cited_segments(markdown: str) -> Iterator[tuple[list[str], list[int]]]:
    """Each run of citations in the prose with the words before it on its line."""
    for line in _FENCE.sub("", markdown).splitlines():
        start = 0
        for match in _CITES.finditer(line):
            yield (
                tokens(line[start : match.start()]),
                [int(n) for n in re.findall(r"\d+", match.group(0))],
            )
            start = match.end()


def _score_citations(
    outcome: Assessment,
    report: GeneratedReport,
    final: str,
    pages: Mapping[int, int],
    written: Written,
) -> None:
    units = [u for u in report.units() if u.cited is not None]
    waiting: dict[tuple[str, ...], deque[Unit]] = {}
    for unit in units:
        waiting.setdefault(tuple(tokens(unit.text)), deque()).append(unit)
    found: dict[int, bool] = {}  # id(unit) -> cited correctly in the final report
    for words, numbers in cited_segments(final):
        cited = {pages.get(n, -1) for n in numbers}
        ending = _ending(words, waiting)
        if ending is not None:
            holds = truth(report, ending)
            found[id(ending)] = cited <= holds
        else:
            holds = {i for i, e in enumerate(report.pages) if contains(e.words, words[-12:])}
            if not holds:
                outcome.unplaced += 1
                continue
        outcome.cited += 1
        outcome.correct += cited <= holds
    prose = _FENCE.sub("", final)
    read = _read_pages(report, written)
    occurrence: dict[str, int] = {}  # "And the output:" may be written several times
    for unit in units:  # now each in turn: as the model cited it, as the report does
        nth = occurrence[unit.text] = occurrence.get(unit.text, -1) + 1
        right_in = unit.cited in truth(report, unit)
        if right_in and not contains(read.get(unit.page, []), tokens(unit.text)):
            continue  # not in what the run read: no check can confirm it, nor should
        outcome.supported += right_in
        outcome.misdirected_in += not right_in
        if id(unit) not in found:  # cited sentence by sentence, inside the unit?
            within = _cited_within(prose, unit.text, pages, nth)
            if within:
                found[id(unit)] = within <= truth(report, unit)
            elif right_in:
                outcome.supported_uncited += within is not None
                outcome.supported_dropped += within is None
                continue
        if id(unit) in found:
            if right_in and not found[id(unit)]:
                outcome.supported_wrong += 1
            outcome.misdirected_fixed += not right_in and found[id(unit)]


def _cited_within(prose: str, text: str, pages: Mapping[int, int], nth: int = 0) -> set[int] | None:
    """The pages cited inside the ``nth`` occurrence of ``text`` in ``prose`` (the last one
    if there are fewer; a unit of several sentences is cited sentence by sentence), or None
    when it is not there at all."""
    words = tokens(text)
    if not words:
        return None
    between = r"[\W_]*?(?:\[[\d,; ]+\][\W_]*?|\[unsupported\][\W_]*?)*"
    pattern = r"(?<!\w)" + between.join(re.escape(w) for w in words) + r"(?!\w)"
    found = list(re.finditer(pattern, prose.replace("`", "").lower()))
    if not found:
        return None
    match = found[min(nth, len(found) - 1)]
    numbers = re.findall(r"\[([\d,; ]+)\]", match.group())
    tail = prose.replace("`", "").lower()[match.end() :]
    after = re.match(r"[^\w\n]*((?:\[[\d,; ]+\])+)", tail)  # citations right after it
    if after:
        numbers.append(after.group(1))
    cited = {int(n) for group in numbers for n in re.findall(r"\d+", group)}
    return {pages.get(n, -1) for n in cited}


def _ending(words: list[str], waiting: dict[tuple[str, ...], deque[Unit]]) -> Unit | None:
    """The longest waiting unit whose words end ``words`` (the sentence the citation
    follows), taken off its queue."""
    best: tuple[str, ...] | None = None
    for key, queue in waiting.items():
        ends = len(key) <= len(words) and tuple(words[len(words) - len(key) :]) == key
        if queue and ends and (best is None or len(key) > len(best)):
            best = key
    return waiting[best].popleft() if best else None


def _read_pages(report: GeneratedReport, written: Written) -> dict[int, list[str]]:
    """The words the run read of each page (its source's passages)."""
    page_of = {e.file_name: i for i, e in enumerate(report.pages)}
    read: dict[int, list[str]] = {}
    for source in written.result.sources:
        page = page_of.get(Path(source.url).name)
        if page is not None:
            read[page] = tokens(" ".join(source.passages))
    return read


def _score_reading(outcome: Assessment, report: GeneratedReport, written: Written) -> None:
    read = _read_pages(report, written)
    for unit in report.units():
        if unit.cited is not None:
            outcome.cited_in += 1
            outcome.read += contains(read.get(unit.page, []), tokens(unit.text))
