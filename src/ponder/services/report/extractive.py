"""An extractive report, for when the model's prose is unusable.

It is built in code from what the run really holds: the cited findings of the summary and
short quotes from the sources most relevant to the question, each with its citation, under
a visible note that says the report is extractive. Even a model that cannot write prose
then yields a readable, correct, cited report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ponder.core.sources import Source
from ponder.services.model import guard
from ponder.services.report.quotes import boilerplate, lead, quote
from ponder.services.research.aspects import Aspect
from ponder.services.research.vetting import is_reading_note
from ponder.services.search.backends.local.fusion import fuse
from ponder.services.text.citations import cited_numbers, remove_invalid
from ponder.services.text.passages import bm25_scores
from ponder.services.text.words import shares_content, stems

NOTE = (
    "*Extractive report: the model's own text was unusable, so this report lists the cited "
    "findings and quotes the most relevant sources directly.*"
)
QUOTES = 4
COVERED = 0.6  # a finding whose words a written text holds this much of is in that text
CUT = "*The model's text was cut here, where it began to repeat {what}.{rest}*"
REST = (
    " What follows is what it had not covered: findings from the research notes and quotes "
    "of sources it did not cite."
)
COMPLETION_QUOTES = 2


def extractive_body(
    topic: str,
    notes: str,
    sources: list[Source],
    *,
    aspects: Sequence[Aspect],
    nearness: Mapping[int, float] | None = None,
) -> str:
    """Markdown body: the note, the cited findings, then quotes (on the question and each
    of its ``aspects``), every claim cited; ``nearness``: each source's likeness in meaning
    to the question, by number (``.nearness``), when an embedding model gave it."""
    parts = [NOTE]
    findings = cited_findings(notes, topic)
    if findings:
        parts.append("## Findings\n\n" + "\n".join(findings))
    chosen = quoted_sources(sources, topic, QUOTES, aspects, nearness)
    shared = boilerplate(sources)
    # Few sources get several quotes each, so one relevant page still yields a full report.
    each = -(-QUOTES // len(chosen)) if chosen else 0
    quotes = [q for q in (quote(s, on, shared | lead(s), each) for s, on in chosen) if q]
    if quotes:
        parts.append("## From the sources\n\n" + "\n\n".join(quotes))
    return "\n\n".join(parts) + "\n"


def completion(
    written: str,
    notes: str,
    topic: str,
    problem: str,
    sources: Sequence[Source] = (),
    *,
    aspects: Sequence[Aspect],
) -> str:
    """``written`` (a text the model broke off) completed, under a visible note, with the
    cited findings of the notes it does not cover and quotes of the most relevant
    ``sources`` it cites nothing of: a weak model's notes may hold little, and the page
    that answers may be known only by what was read of it."""
    have = stems(written)
    missing = [
        line
        for line in cited_findings(notes, topic)
        if not line.startswith("#") and not _covered(stems(line), have)
    ]
    cited = set(cited_numbers(written)) | {n for line in missing for n in cited_numbers(line)}
    quotes = uncited_quotes(list(sources), topic, cited, aspects)
    what = "its instructions" if "prompt" in problem else "itself"
    note = CUT.format(what=what, rest=REST if missing or quotes else "")
    added = (["\n".join(missing)] if missing else []) + quotes
    return "\n\n".join([written.rstrip(), note, *added])


def uncited_quotes(
    sources: list[Source], topic: str, cited: set[int], aspects: Sequence[Aspect]
) -> list[str]:
    """One quote from each of the most relevant sources (at most ``COMPLETION_QUOTES``)
    whose numbers are not in ``cited``."""
    shared = boilerplate(sources)
    chosen = [
        (s, on)
        for s, on in quoted_sources(sources, topic, QUOTES, aspects)
        if s["number"] not in cited
    ]
    quoted = (quote(s, on, shared | lead(s)) for s, on in chosen[:COMPLETION_QUOTES])
    return [q for q in quoted if q]


def _covered(finding: set[str], text: set[str]) -> bool:
    return not finding or len(finding & text) >= COVERED * len(finding)


def cited_findings(notes: str, topic: str) -> list[str]:
    """Lines of the notes worth showing: headings, and cited findings about the topic (or
    their section's sub-topic), each once.

    The bar is higher than for the summary: this report exists because the model is weak,
    and a finding that names nothing the question names reads as noise here.
    """
    kept: list[str] = []
    seen: set[str] = set()
    section = ""
    for raw in notes.splitlines():
        line = raw.strip()
        # One finding once, whatever it cites: its citations are checked (and may go) later.
        key = " ".join(remove_invalid(line, ())[0].lower().split())
        if not line or key in seen or is_reading_note(line) or guard.echoes_prompt(line):
            continue
        if line.startswith("#"):
            section = line.lstrip("# ")
            line = "### " + section
        elif not cited_numbers(line) or not shares_content(line, [topic, section]):
            continue
        seen.add(key)
        kept.append(line if line.startswith(("#", "- ")) else f"- {line}")
    return _without_empty_headings(kept)


def _without_empty_headings(lines: list[str]) -> list[str]:
    return [
        line
        for i, line in enumerate(lines)
        if not line.startswith("#") or (i + 1 < len(lines) and not lines[i + 1].startswith("#"))
    ]


def most_relevant(
    sources: list[Source],
    topic: str,
    limit: int,
    at_least: float = float("-inf"),
    nearness: Mapping[int, float] | None = None,
) -> list[Source]:
    """The sources whose read passages best match the topic (BM25), best first; only those
    scoring ``at_least``. With their ``nearness`` in meaning to the topic, words and meaning
    are fused as search fuses them (:func:`ponder.services.search.backends.local.fusion.fuse`)."""
    scores = bm25_scores([source_text(s) for s in sources], topic)
    ranked = sorted(zip(scores, range(len(sources)), strict=True), key=lambda p: (-p[0], p[1]))
    order = [i for _, i in ranked]
    if nearness:
        by_words = {str(i): scores[i] for i in order}
        by_meaning = {
            str(i): nearness[s["number"]] for i, s in enumerate(sources) if s["number"] in nearness
        }
        order = [int(i) for i in fuse(by_words, by_meaning)]
    return [sources[i] for i in order[:limit] if scores[i] >= at_least]


def source_text(source: Source) -> str:
    """What was read of a source, its title first."""
    return f"{source['title']}\n" + "\n".join(source["passages"])


def quoted_sources(
    sources: list[Source],
    topic: str,
    limit: int,
    aspects: Sequence[Aspect],
    nearness: Mapping[int, float] | None = None,
) -> list[tuple[Source, str]]:
    """The sources to quote and what to quote them on: the first source found, then for
    each part of a joined question (its ``aspects``) the source most about that part, then
    the most relevant to the whole question, up to ``limit``; and the second source found
    when none of those is it.

    The first sources found are the first results of the question's own search (round 1
    searches the question first), ranked on the whole collection. Relevance here is judged
    on the few pages read, where a word of every pydoc page ("__repr__") looks rare: for
    "classes with automatically generated __init__ and __repr__" it put tarfile's page
    first and dataclasses', the search's first, fourth. A web search's snippet may also lack
    the words that made the engine rank its page high: for "How do I create a .pyc file?"
    the engine's first two were py_compile and compileall, and compileall's snippet ranked
    last of five. So the search's own second is quoted too, beside (never instead of) what
    the pages read say. A part's words can be everywhere, so the first found is quoted
    before the parts. A part whose best source is quoted already gets the next source about
    it, or it would go unquoted ("compress it with gzip", when tarfile's page is best for
    both parts). With the sources' ``nearness`` in meaning to the question, the most
    relevant to it are judged by meaning beside words: a page that answers in other words
    holds few of the question's.
    """
    found = sorted(sources, key=lambda s: s["number"])
    picks = [(found[0], topic)] if found else []
    for aspect in aspects:
        about = most_relevant(sources, aspect.query, len(sources), at_least=1e-9)
        fresh = [s for s in about if all(s is not p for p, _ in picks)]
        if fresh and (fresh[0] is about[0] or aspect.in_text(source_text(fresh[0]))):
            picks.append((fresh[0], aspect.query))
    for source in most_relevant(sources, topic, limit, nearness=nearness):
        if all(source is not s for s, _ in picks):
            picks.append((source, topic))
    picks = picks[:limit]
    if len(found) > 1 and all(found[1] is not s for s, _ in picks):
        picks.append((found[1], topic))
    return picks
