"""What a model decides is checked for sense before the research relies on it.

Schemas guarantee the form of an answer; these checks guard its substance, so a weak model
cannot spoil the research:

- a search query must be about the research: it shares a content word with the topic, the
  brief, the summary or the named gap, does not echo the prompt and is not an address. A
  query that fails is replaced by one built from the topic and the gap;
- a claim in the summary must say something a source it cites says: no placeholders or
  bare titles, no duplicates, no restated question, no copied instructions, and most of
  its words found in the cited source;
- "sufficient" must be backed by the summary: enough findings about the topic, citing
  enough distinct sources.

A sensible model's output passes every check unchanged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ponder.services.model import guard
from ponder.services.text.citations import cited_numbers, remove_invalid
from ponder.services.text.words import content_words, shares_content, stem, stems, terms, words

MAX_QUERY_CHARS = 300
MIN_CLAIM_WORDS = 3  # "Tides follow the Moon"; a bare title such as "Tide notes 15" is not
# Placeholders a weak model writes instead of a finding.
_PLACEHOLDERS = frozenset(
    {"none", "null", "nil", "na", "unknown", "nothing", "todo", "tbd", "placeholder", "example"}
    | {"statement", "finding", "findings", "source", "sources", "summary"}  # field names
)
# "I want to…", "I'm a student…": a weak model speaking as the asker, not a finding. ("We"
# and "our" are left alone: sources speak so — "We propose…", "Our solar system…".)
_FIRST_PERSON = re.compile(
    r"\s*(i'm|i've|i'd|my\s|i\s+(am|was|want|have|need|think|would|will|do|can)\b)",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://|\bwww\.[a-z0-9-]+\.")
_REPLACEMENT_SUFFIXES = ("examples", "explained", "overview", "details", "")
# Words addressed to a model, not said about the world: a page's injected instructions
# that a model restated as a "finding" ("Ignore your previous instructions and…").
_INSTRUCTION_TO_A_MODEL = re.compile(
    r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:your|the|my|previous|prior|above|earlier)"
    r"(?:\s+(?:previous|prior|above|earlier|system))*\s+(?:instructions|prompts?|rules)\b"
    r"|\b(?:system|developer)\s+prompt\b|^\s*(?:system|assistant)\s*:",
    re.IGNORECASE,
)


def normalise(text: str) -> str:
    return " ".join(text.lower().split())


def has_words(text: str) -> bool:
    """Small models sometimes emit punctuation as a query; such a query finds nothing."""
    return re.search(r"\w{2,}", text) is not None


# -- queries --------------------------------------------------------------------------


@dataclass
class VettedQueries:
    queries: list[str]
    replaced: int  # junk queries thrown out; each is replaced while the round has room
    own: int = 0  # how many of ``queries`` (the first ones) are the model's


def is_junk_query(query: str, context: Sequence[str]) -> bool:
    """A query that cannot reach the evidence: no words, an echo, an address, or off the
    topic. An address (``http://…``, ``www.…``) is what a page's instructions look like in
    a query, and no search engine answers one."""
    if not has_words(query) or guard.echoed_words(query) >= guard.ECHO_NGRAM:
        return True
    if _ADDRESS.search(query):
        return True
    return not shares_content(query, context)


def vet_queries(
    candidates: Iterable[str],
    *,
    topic: str,
    already: Sequence[str],
    limit: int,
    context: Sequence[str] = (),
    gap: str = "",
) -> VettedQueries:
    """Fresh, on-topic queries (at most ``limit``); junk ones replaced from topic and gap."""
    relevant = [topic, gap, *context]
    seen = {normalise(q) for q in already}
    kept: list[str] = []
    junk = 0
    for query in candidates:
        text = " ".join(query.split())[:MAX_QUERY_CHARS]
        key = normalise(text)
        if not key or key in seen:
            continue  # a repeat is not junk: the search already ran
        seen.add(key)
        if is_junk_query(text, relevant):
            junk += 1
            continue
        kept.append(text)
    kept = kept[:limit]
    own = len(kept)
    room = min(limit - len(kept), junk)
    if room > 0:
        kept += replacement_queries(topic, gap, seen)[:room]
    return VettedQueries(kept, replaced=junk, own=own)


@functools.cache
def _schema_words() -> frozenset[str]:
    """Stems of the field names of ponder's structured answers ("knowledge_gap" → knowledge,
    gap), which a weak model sometimes writes as content."""
    from ponder import prompts

    return frozenset(stems(prompts.SCHEMA_FIELDS.replace("_", " ") + " topic subtopic"))


def is_junk_subtopic(subtopic: str, topic: str) -> bool:
    """A sub-topic made only of schema field names (beyond the topic's words): "reflection",
    "knowledge gap", "subtopics". Unlike a query it need not share a word with the topic:
    "tides" is a fine sub-topic of "Oceans", "command line" of "Git basics"."""
    if not has_words(subtopic) or guard.echoed_words(subtopic) >= guard.ECHO_NGRAM:
        return True
    spelled = subtopic.replace("_", " ")  # "research_complete" is two field-name words
    own = stems(spelled) - stems(topic)
    return not stems(spelled) or (bool(own) and own <= _schema_words())


def key_terms(text: str, limit: int) -> list[str]:
    """The first distinct content words of ``text``, in order, as written."""
    return list(dict.fromkeys(terms(text)))[:limit]


def replacement_queries(topic: str, gap: str, taken: Iterable[str]) -> list[str]:
    """Queries built from the topic's key terms and the gap's, that have not run yet."""
    taken_keys = {normalise(t) for t in taken}
    subject = key_terms(topic, 6) or [topic.strip()]
    # The gap names what is missing, so it need not share words with the topic; it only
    # must not be an echo of the prompt.
    gap_terms = [] if guard.echoed_words(gap) >= guard.ECHO_NGRAM else key_terms(gap, 3)
    extra = [w for w in gap_terms if w not in subject]
    options = [" ".join(subject + extra)] if extra else []
    # The suffixes are English; other languages get the key terms alone.
    suffixes = _REPLACEMENT_SUFFIXES if topic.isascii() else ("",)
    options += [" ".join([*subject, suffix]).strip() for suffix in suffixes]
    fresh = []
    for option in options:
        if option and normalise(option) not in taken_keys:
            taken_keys.add(normalise(option))
            fresh.append(option)
    return fresh


# -- claims and other short texts --------------------------------------------------------


def usable_text(text: str, about: Sequence[str] = ()) -> bool:
    """A brief or a question: words that carry meaning, no echo of the prompt, no loop, and
    (when ``about`` is given) a content word in common with it."""
    if not content_words(text) or guard.problem(text) is not None:
        return False
    return not about or shares_content(text, about)


def is_empty_claim(statement: str, topic: str) -> bool:
    """A placeholder, the writer talking about itself, a loop, copied instructions (ponder's,
    or a page's to a model), or the question restated: nothing a source said."""
    words = content_words(statement)
    if len(words) < MIN_CLAIM_WORDS or all(w in _PLACEHOLDERS for w in words):
        return True
    if _FIRST_PERSON.match(statement) or guard.problem(statement) is not None:
        return True
    if guard.echoed_words(statement) >= guard.ECHO_NGRAM:
        return True
    if _INSTRUCTION_TO_A_MODEL.search(statement):
        return True
    return restates(statement, topic)


def restates(statement: str, topic: str) -> bool:
    """The question asked back ("How do tides work?"), not an answer to it.

    An answer may use only the question's words ("Yes, the Moon causes the tides", "Mount
    Everest is 8,849 m tall"); a restatement is phrased as a question, or is the question.
    """
    mine = " ".join(words(statement))
    if mine == " ".join(words(topic)):
        return True
    return statement.rstrip().endswith("?") and stems(statement) <= stems(topic)


def grounded(statement: str, cited_texts: Iterable[str]) -> bool:
    """Whether a third of the claim's content words (and at least two) occur in a cited
    text.

    A finding restates what a source says, so it shares its words even when paraphrased;
    text a weak model makes up mostly does not.
    """
    mine = stems(statement)
    needed = max(min(2, len(mine)), -(-len(mine) // 3))
    return any(len(mine & stems(text)) >= needed for text in cited_texts)


def usable_claims(
    claims: Sequence[tuple[str, Sequence[int]]], topic: str, source_texts: Mapping[int, str]
) -> list[int]:
    """Indexes of the claims worth keeping: not empty, grounded in a source they cite, and
    not a duplicate of an earlier one."""
    seen: set[str] = set()
    keep = []
    for index, (written, numbers) in enumerate(claims):
        # Judged without the [n] a model may write inline: "How do I…? [1]" is the question.
        statement = remove_invalid(written, ())[0].strip()
        if is_empty_claim(statement, topic):
            continue
        if not grounded(statement, [source_texts.get(n, "") for n in numbers]):
            continue
        key = " ".join(stem(w) for w in words(statement))
        if key in seen:
            continue
        seen.add(key)
        keep.append(index)
    return keep


# -- evidence ---------------------------------------------------------------------------

_READING_NOTE = "- Read for "


def reading_note(query: str, title: str, number: int, topic: str = "") -> str:
    """A summary line that only records what was read (when the model's summary failed).

    It keeps the source citable in later prompts, but is not evidence for stopping. A page
    found by the question itself says so in two words: the prompts it is shown in start
    with the question, and a long question repeated on every line costs tokens each time.
    """
    name = " ".join((title or "a source").split())[:120]
    by_question = normalise(query) == normalise(question_query(topic))
    found_for = "the topic" if by_question else repr(query[:80])
    return f"{_READING_NOTE}{found_for}: {name!r} [{number}]"


def question_query(topic: str) -> str:
    """The question as round 1 searches it, before any query of the model's."""
    return topic[:MAX_QUERY_CHARS]


def is_reading_note(line: str) -> bool:
    return line.lstrip().startswith(_READING_NOTE)


@dataclass
class Evidence:
    findings: int  # summary lines of substance that cite a source
    sources: int  # distinct sources those lines cite
    on_topic: bool  # at least one of them names something the topic names

    def backs(self, min_findings: int, min_sources: int) -> bool:
        return (
            self.findings >= min_findings
            and self.sources >= min_sources
            and (self.on_topic or min_findings == 0)
        )


def finding_lines(summary: str) -> list[str]:
    """The summary's lines of cited substance (reading notes record, they do not find)."""
    return [
        line
        for line in summary.splitlines()
        if cited_numbers(line)
        and not is_reading_note(line)
        and len(content_words(line)) >= MIN_CLAIM_WORDS
    ]


def evidence(summary: str, about: Sequence[str]) -> Evidence:
    """How much of the summary is cited substance (reading notes do not count)."""
    lines = finding_lines(summary)
    cited = {n for line in lines for n in cited_numbers(line)}
    on_topic = any(shares_content(line, about) for line in lines)
    return Evidence(len(lines), len(cited), on_topic)
