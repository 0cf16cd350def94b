"""Every citation of a written report checked, sentence by sentence, against what was read.

A valid number is not yet a true citation. Each sentence (of a paragraph, a list item or
a table row) is scored against the spans of the passages ponder read (``support``):

- a citation whose source supports the sentence is kept, and records the span it rests on;
- one whose source does not is re-pointed to the source whose passage clearly does, or
  removed;
- a sentence without a citation that a passage clearly supports gets that citation (this
  is how a small model's uncited prose becomes a cited report);
- a sentence that nothing read supports is marked ``[unsupported]``, or dropped when
  ``strict`` is set.

Only citations change: the words of the text stay as the model wrote them. Headings and
code are not claims and are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ponder.core.result import UNSUPPORTED_MARK
from ponder.services.report.claims import ITEM, Claim, claims
from ponder.services.report.support import Evidence, Match, Span, claim_stems
from ponder.services.text.citations import cited_numbers, in_prose, prose_only

KEEP = 0.4  # a cited source whose best span holds this share of the claim supports it
# (and a sentence some span holds this much of is about the sources, cited or not)
KEEP_SHARED = 0.25  # …when the sentence cites several sources, each holding a part
OUTDONE = 0.35  # …unless another source's span holds this much more of it
ADD = 0.5  # an uncited sentence gets the citation of a span holding this share…
ADD_MARGIN = 0.1  # …and this much more than any other source's span
REPOINT_MARGIN = 0.2  # a re-pointed citation must beat the cited source by this much
UNSUPPORTED = 0.3  # below this with every source, a sentence is marked
MIN_ADD_WORDS = 3  # an added citation rests on at least this many of the claim's words
MIN_MARK_WORDS = 4  # shorter sentences (transitions, labels) are never marked
MARK = UNSUPPORTED_MARK

_GROUP = re.compile(r"(?<!\w)\[(\s*\d{1,3}\s*(?:[,;]\s*\d{1,3}\s*)*)\](?!\()")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_TRAILING = re.compile(r"[\s.!?:;,\"'”’)*_]*$")


@dataclass(frozen=True)
class Cited:
    """One citation of the checked text: which sentence, which source, which span."""

    sentence: str
    number: int
    span: Span
    quote: str
    score: float


@dataclass
class Checked:
    text: str
    citations: list[Cited] = field(default_factory=list)
    checked: int = 0
    kept: int = 0
    repointed: int = 0
    added: int = 0
    removed: int = 0
    unsupported: int = 0
    claims: int = 0  # sentences long enough to be judged (MIN_MARK_WORDS content words)
    supported_claims: int = 0  # sentences that end up citing a source that supports them
    related_claims: int = 0  # sentences a span holds KEEP of, cited or not

    @property
    def grounded(self) -> bool:
        """Whether the text rests on the sources: some of its sentences cite a source that
        supports them, and no more sentences are about nothing read than about the sources."""
        return self.supported_claims > 0 and self.unsupported <= self.related_claims


def verify(
    text: str,
    evidence: Evidence,
    *,
    strict: bool = False,
    only_cited: bool = False,
    topic: str = "",
) -> Checked:
    """Check every citation of ``text`` (registry numbers) against ``evidence``.

    ``strict`` drops the sentences nothing supports instead of marking them; with
    ``only_cited`` every sentence left without a citation is dropped (text built in code
    from findings, where an uncited line has no business). A sentence that only restates
    ``topic`` (the question asked back, a heading-like "Reading files in Python") is
    checked like any other but is no evidence that the text rests on the sources: a page
    about the topic holds its words whatever the text says.
    """
    result = Checked(text)
    edits: list[tuple[int, int, str]] = []
    asked = claim_stems(topic)
    neighbour: list[int] = []  # the sources the paragraph's previous sentence ends up citing
    previous_end = -1
    for claim in claims(text):
        if "\n\n" in text[previous_end : claim.start] or previous_end < 0:
            neighbour = []
        supported, related = result.supported_claims, result.related_claims
        recorded = len(result.citations)
        replacement = _check(claim, evidence, result, strict, neighbour)
        neighbour = [c.number for c in result.citations[recorded:]]
        previous_end = claim.end
        if asked and claim_stems(_plain(claim.text)) <= asked:
            result.supported_claims, result.related_claims = supported, related
        kept = claim.text if replacement is None else replacement
        if only_cited and (not cited_numbers(kept) or not claim_stems(_plain(kept))):
            replacement = ""  # uncited, or a citation on nothing ("It’ [1]")
        if replacement is not None:
            edits.append((claim.start, claim.end, replacement))
    for start, end, replacement in reversed(edits):
        text = _replace(text, start, end, replacement)
    result.text = text
    return result


def _replace(text: str, start: int, end: int, replacement: str) -> str:
    """Replace a claim; a claim dropped takes its list marker, or its blank, with it."""
    if replacement:
        return text[:start] + replacement + text[end:]
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if ITEM.fullmatch(text[line_start:start]) and not text[end:line_end].strip():
        return text[:line_start] + text[line_end + 1 :]  # the whole item
    if text[end : end + 1] == " ":
        end += 1  # the blank that followed the sentence
    elif start > line_start and text[start - 1] == " ":
        start -= 1  # or, at the end of a line, the blank before it
    return text[:start] + text[end:]


def _check(
    claim: Claim, evidence: Evidence, result: Checked, strict: bool, neighbour: list[int]
) -> str | None:
    """The claim's new text, or None to leave it exactly as written. ``neighbour``: the
    sources the sentence before it in its paragraph cites, once checked."""
    plain = _plain(claim.text)
    stems = claim_stems(plain)
    cited = cited_numbers(claim.text)
    if not stems:
        return None
    result.claims += len(stems) >= MIN_MARK_WORDS
    matches = {m.span.source: m for m in evidence.matches(plain)}
    best = max(matches.values(), key=lambda m: m.score, default=None)
    result.checked += len(cited) or 1
    result.related_claims += best is not None and best.score >= KEEP
    kept = _supporting(cited, matches)
    short = len(stems) < MIN_MARK_WORDS  # too short to judge ("The attributes are:"): a
    if short:  # source holding its words may stay, else the paragraph's source, if it does
        for n in cited:  # (a label many pages share, "Availability: Unix.", is held too)
            if n not in matches and (held := evidence.holding(n, plain)) is not None:
                matches[n] = held
        kept = [n for n in cited if n in matches]
    shared = _for_short(stems, neighbour, matches) if short and cited and not kept else []
    if cited and kept == cited:
        result.kept += len(kept)
        return _record(claim, plain, [matches[n] for n in kept], evidence, result, None)
    if kept:  # some cited sources support it, the others are dropped
        result.kept += len(kept)
        result.removed += len(cited) - len(kept)
        chosen = [matches[n] for n in kept]
    elif shared:
        result.repointed += len(cited)
        chosen = [matches[n] for n in shared]
    elif best is not None and _clearly(best, cited, matches):
        if cited:
            result.repointed += len(cited)
        else:
            result.added += 1
        chosen = [best]
    else:
        result.removed += len(cited)
        chosen = []
    if chosen:
        return _record(claim, plain, chosen, evidence, result, _cite(claim.text, chosen))
    weak = best is None or best.score < UNSUPPORTED
    if claim.kind == "sentence" and weak and len(stems) >= MIN_MARK_WORDS:
        result.unsupported += 1
        return "" if strict else _cite(claim.text, [], mark=True)
    return _cite(claim.text, []) if cited else None


def _for_short(stems: set[str], neighbour: list[int], matches: dict[int, Match]) -> list[int]:
    """Where a short claim's citation goes when its source does not hold its words: to
    its paragraph's source if that holds them, else to the one source that holds them all
    ("Availability: Unix." on one page of those read)."""
    beside = [n for n in neighbour if n in matches]
    whole = [n for n, m in matches.items() if m.words == len(stems)]
    return beside or (whole if len(whole) == 1 else [])


def _supporting(cited: list[int], matches: dict[int, Match]) -> list[int]:
    bar = KEEP if len(cited) == 1 else KEEP_SHARED
    best = max((m.score for m in matches.values()), default=0.0)
    return [n for n in cited if n in matches and matches[n].score >= max(bar, best - OUTDONE)]


def _clearly(best: Match, cited: list[int], matches: dict[int, Match]) -> bool:
    """Whether ``best`` clearly supports the claim: it holds much of it, more than any
    other source does, and clearly more than the sources it cites."""
    if best.score < ADD or best.words < MIN_ADD_WORDS:
        return False
    others = [m.score for n, m in matches.items() if n != best.span.source]
    if others and best.score < max(others) + ADD_MARGIN:
        return False
    rival = max((matches[n].score for n in cited if n in matches), default=0.0)
    return best.score >= rival + REPOINT_MARGIN


def _record(
    claim: Claim,
    plain: str,
    chosen: list[Match],
    evidence: Evidence,
    result: Checked,
    replacement: str | None,
) -> str | None:
    result.supported_claims += 1
    sentence = " ".join(plain.split())
    for match in chosen:
        quote = evidence.quote(match.span)
        result.citations.append(Cited(sentence, match.span.source, match.span, quote, match.score))
    return replacement


def _cite(text: str, chosen: list[Match], *, mark: bool = False) -> str:
    """``text`` with its citations replaced by ``chosen`` (or the mark), placed where the
    first citation was, else before the sentence's closing punctuation."""
    first = _GROUP.search(prose_only(text))
    bare = in_prose(text, lambda part: re.sub(r"[ \t]*" + _GROUP.pattern, "", part))
    group = "".join(f"[{m.span.source}]" for m in chosen) or (MARK if mark else "")
    if not group:
        return bare
    if first is not None:  # no citation comes before the first: the offsets agree
        at = len(text[: first.start()].rstrip(" \t"))
    else:
        at = len(bare) - len(_TRAILING.search(bare).group())  # type: ignore[union-attr]
    before = bare[:at].rstrip(" \t")
    joiner = "" if before.endswith((" ", "\n")) or not before else " "
    return before + joiner + group + bare[at:]


def _plain(text: str) -> str:
    """The sentence's words for scoring: no citations, no link targets."""
    return _LINK_TARGET.sub("]", in_prose(text, lambda part: _GROUP.sub(" ", part)))
