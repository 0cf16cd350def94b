"""The parts of a question, found in code, and which of them the research has covered.

"Send pickled objects over a socket" asks about two things, each with its own best source.
Searching the whole question favours one of them, and a weak model's follow-ups rarely
name the other, so the parts are split here, where no model can spoil them:

- a question splits at the words that join its parts: "and", "then", "with", "vs",
  "over", "via", "using", "compared to", commas and semicolons;
- a lone word in verb position before "and" shares the next part's object ("read and
  write JSON files", "compress and decompress files") and joins that part;
- a lone word after a joining preposition is a part of its own: the named thing it
  brings in ("with bisect", "over a socket", "Redis vs Memcached");
- a part keeps its distinctive words (those no other part has); a finding that holds
  half of them covers it.

A question with one part has no aspects: the loop then runs as it always did.

The parts are found once per question, where its first round is planned, and carried in
the state (``carry``) to every node that reads them (``aspects_for``): each round's
reflection and the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ponder.core.state import AspectRecord, QuestionAspects
from ponder.services.research.vetting import (
    VettedQueries,
    finding_lines,
    normalise,
    replacement_queries,
)
from ponder.services.text.citations import cited_numbers
from ponder.services.text.words import STOPWORDS, stems, terms, words

MAX_ASPECTS = 4
# Joined clauses: "A and B", "A, then B", "A; B". Their lone first word may be a verb
# whose object the next part names.
_CLAUSE_JOINERS = r",|;|\band then\b|\bthen\b|\band\b|\bas well as\b|\bplus\b"
# Prepositions that bring in a second thing: a lone word after them is that thing.
_THING_JOINERS = (
    r"\bcompared (?:to|with)\b|\bcompare (?:to|with)\b|\bversus\b|\bvs\b\.?|\bwith\b"
    r"|\bover\b|\bvia\b|\busing\b"
)
_SPLIT = re.compile(rf"\s*({_CLAUSE_JOINERS}|{_THING_JOINERS})\s*", re.IGNORECASE)
_THING = re.compile(_THING_JOINERS, re.IGNORECASE)
# Words after which a lone word is a verb: "How do I read and write…", "to compress and…".
_VERB_POSITION = frozenset({"i", "we", "you", "to", "can", "do", "does", "should", "how"})
# The asking itself, in no part's own words ("How do I…", "What is the best way to…").
_FRAME = frozenset(
    {"best", "way", "explain", "tell", "show", "want", "possible", "python", "compare"}
    | {"difference", "differences"}
)
_ASKING = STOPWORDS | _FRAME  # words left out of a part's query


@dataclass(frozen=True)
class Aspect:
    text: str  # the part as asked: "send pickled objects", "socket"
    query: str  # what is searched for it
    terms: frozenset[str]  # stems of its distinctive words

    @property
    def needed(self) -> int:
        """How many of its distinctive stems a text must hold to be about it."""
        return max(1, -(-len(self.terms) // 2))

    def in_text(self, text: str) -> bool:
        return len(self.terms & stems(text)) >= self.needed


def aspects_of(question: str) -> list[Aspect]:
    """The question's parts, in order; none when it has only one."""
    parts = _parts(question.strip().rstrip("?!. "))
    if len(parts) < 2:
        return []
    own = [stems(" ".join(_meaningful(p))) for p in parts]
    aspects = []
    for index, part in enumerate(parts):
        others = set().union(*(s for i, s in enumerate(own) if i != index))
        distinct = own[index] - others or own[index]
        query = " ".join(w for w in dict.fromkeys(words(part)) if w not in _ASKING)
        aspects.append(Aspect(part, query, frozenset(distinct)))
    return aspects[:MAX_ASPECTS]


def carry(question: str, aspects: Sequence[Aspect]) -> QuestionAspects:
    """The question's parts as the state carries them, from the node that finds them to
    every node that reads them (``aspects_for``)."""
    records = [AspectRecord(text=a.text, query=a.query, terms=sorted(a.terms)) for a in aspects]
    return QuestionAspects(question=question, aspects=records)


def aspects_for(question: str, carried: object = None) -> list[Aspect]:
    """The question's parts: those ``carried`` in the state when they are of this question,
    else found now (the deep pipeline entered directly, before any round found them, or a
    state written from outside the graph)."""
    if isinstance(carried, dict) and carried.get("question") == question:
        records = carried.get("aspects")
        if isinstance(records, list) and all(_is_record(r) for r in records):
            return [Aspect(r["text"], r["query"], frozenset(r["terms"])) for r in records]
    return aspects_of(question)


def _is_record(record: object) -> bool:
    if not isinstance(record, dict):
        return False
    text, query, terms = record.get("text"), record.get("query"), record.get("terms")
    strings = isinstance(text, str) and isinstance(query, str)
    return strings and isinstance(terms, list) and all(isinstance(t, str) for t in terms)


def _meaningful(part: str) -> list[str]:
    """The part's words that carry meaning, as written, without the asking's frame."""
    return [w for w in dict.fromkeys(terms(part)) if w not in _FRAME]


def _parts(question: str) -> list[str]:
    """The question cut at its joining words, lone verbs joined to the part they share an
    object with, and parts that hold no meaning of their own left out."""
    pieces = _SPLIT.split(question)
    texts, joiners = pieces[0::2], ["", *pieces[1::2], ""]  # joiners[i] comes before texts[i]
    parts: list[str] = []
    brought: list[bool] = []  # whether each part came in after "with", "vs", "over"…
    pending = ""  # a lone verb and its joiner, waiting for the part that names its object
    for index, text in enumerate(texts):
        text = text.strip()
        if not _meaningful(text):
            continue
        if pending:
            text, pending = f"{pending} {text}", ""
        elif _shares_next_object(text, index, joiners[index], joiners[index + 1]):
            pending = f"{text} {joiners[index + 1]}"
            continue
        elif parts and brought[-1] and _listed_with(text, joiners[index]):
            parts[-1] = f"{parts[-1]} {joiners[index]} {text}"  # "with __init__ and __repr__"
            continue
        parts.append(text)
        brought.append(bool(_THING.fullmatch(joiners[index])))
    if pending:  # nothing followed: the verb was the part
        parts.append(pending.rsplit(" ", 1)[0])
    return _distinct(parts)


def _listed_with(text: str, before: str) -> bool:
    """A lone word after "and" or a comma, following a part brought in by "with" or "vs":
    one more of the things that part lists ("with automatically generated __init__ and
    __repr__"), not a part of its own."""
    return len(_meaningful(text)) == 1 and not _THING.fullmatch(before)


def _shares_next_object(text: str, index: int, before: str, after: str) -> bool:
    """A lone word in verb position before a joiner, whose object or means the next part
    names: "How do I read [and write JSON]", "…and compress it [with gzip]". After "with" or
    "vs" a lone word is a thing ("with bisect"), and so it is opening a comparison ("Redis
    vs Memcached")."""
    meaning = _meaningful(text)
    if len(meaning) != 1 or not after or _THING.fullmatch(before):
        return False
    tokens = words(text)
    at = tokens.index(meaning[0]) if meaning[0] in tokens else 0
    verb = tokens[at - 1] in _VERB_POSITION if at else True
    if _THING.fullmatch(after):
        return verb and (index > 0 or at > 0)
    return verb


def _distinct(parts: Sequence[str]) -> list[str]:
    seen: set[frozenset[str]] = set()
    kept = []
    for part in parts:
        key = frozenset(stems(part))
        if key and key not in seen:
            seen.add(key)
            kept.append(part)
    return kept


# -- coverage ------------------------------------------------------------------------------


def uncovered(aspects: Iterable[Aspect], summary: str) -> list[Aspect]:
    """The aspects no cited finding of the summary is about."""
    lines = finding_lines(summary)
    return [a for a in aspects if not any(a.in_text(line) for line in lines)]


def covered_in_report(aspects: Iterable[Aspect], markdown: str) -> int:
    """How many aspects a cited passage of the report is about."""
    cited = cited_units(markdown)
    return sum(1 for a in aspects if any(a.in_text(unit) for unit in cited))


def cited_units(markdown: str) -> list[str]:
    """The report's passages that cite a source, before its Sources section: a paragraph,
    a list item or a quote with its attribution."""
    body = markdown.split("\n## Sources", 1)[0]
    units: list[str] = []
    for block in re.split(r"\n\s*\n", body):
        lines = block.splitlines()
        listed = all(re.match(r"\s*(?:[-*+]|\d+[.)])\s", line) for line in lines if line.strip())
        units += lines if listed else [block]
    return [unit for unit in units if cited_numbers(unit)]


def worth_searching(gaps: Sequence[Aspect], summary: str, already: Sequence[str]) -> list[Aspect]:
    """The gaps to search next. With no finding at all (the model summarised nothing, only
    what was read is noted) a part searched already is no gap in the search but in the
    summary: searching it again in other words only fills the next round with weaker
    pages (in the quality benchmark they pushed dataclasses' page out of the quotes)."""
    if finding_lines(summary):
        return list(gaps)
    ran = {normalise(q) for q in already}
    return [a for a in gaps if normalise(a.query) not in ran]


def aims_at(query: str, aspect: Aspect, aspects: Sequence[Aspect]) -> bool:
    """Whether a planned query searches this aspect alone: it holds a distinctive word of
    it and none of another's (a query about every part is the whole question again)."""
    mine = stems(query)
    others = [a for a in aspects if a is not aspect]
    return bool(aspect.terms & mine) and not any(a.terms & mine for a in others)


def with_aspects(
    planned: VettedQueries,
    wanted: Sequence[Aspect],
    aspects: Sequence[Aspect],
    taken: Sequence[str],
    limit: int,
) -> list[str]:
    """A round's queries: for each wanted aspect, the model's own query aimed at it (a
    capable model's words are kept) or else ponder's; then the rest of the model's plan.

    ``taken`` are the queries already run or chosen for this round: an aspect whose query
    ran already is searched in other words ("socket examples").
    """
    own = planned.queries[: planned.own]
    chosen: list[str] = []
    for aspect in wanted:
        mine = [q for q in own if q not in chosen and aims_at(q, aspect, aspects)]
        query = mine[0] if mine else _fresh(aspect.query, [*taken, *chosen])
        if query:
            chosen.append(query)
    rest = [q for q in planned.queries if q not in chosen]
    return [*chosen, *rest][:limit]


def _fresh(query: str, taken: Sequence[str]) -> str:
    if normalise(query) not in {normalise(t) for t in taken}:
        return query
    return next(iter(replacement_queries(query, "", taken)), "")
