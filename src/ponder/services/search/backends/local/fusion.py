"""Two rankings of the same candidates made one: the words' (BM25) and the meanings'."""

from __future__ import annotations

# Chosen on the paraphrase benchmark's development half (bench/paraphrase.py: its first 16
# and added 12 questions) by a rule fixed before looking: the most answer pages @3, then
# @1, then the least weight on the vectors, losing no page BM25 finds. 0.5 found 23 @3
# where the vectors alone found 25; 0.70 finds 25 (18 @1), and on the test half (the held-out
# 8, the identifier and the keyword questions) it matches the better list of every set and
# loses nothing BM25 finds; 0.75 and more lose pprint's identifier question.
SEMANTIC_WEIGHT = 0.7


def fuse(
    lexical: dict[str, float], semantic: dict[str, float], semantic_weight: float = SEMANTIC_WEIGHT
) -> list[str]:
    """Two scored rankings made one, best first: a convex combination of their scores, each
    list rescaled so that its best candidate is 1 and its weakest 0.

    Scores, not ranks, so that a list's margins count: a first place won by far keeps its
    lead, one won by a hair gives little. Reciprocal rank fusion counted both alike and gave
    a page in both lists two votes however weak, so pages both lists put in the middle
    outranked either list's clear first. A candidate missing from one list counts as that
    list's weakest, not as nothing: a question worded unlike its page often shares no word
    with it. The rescaling is relative to each list's own candidates, so it cannot tell a
    list that is sure from one that is not; nothing measured so far could (docs/search.md,
    "Why score fusion"). Ties keep the lexical list's order.
    """
    lexical_part, semantic_part = rescaled(lexical), rescaled(semantic)
    combined = {
        item: (1 - semantic_weight) * lexical_part.get(item, 0.0)
        + semantic_weight * semantic_part.get(item, 0.0)
        for item in {**lexical, **semantic}
    }
    return sorted(combined, key=lambda item: -combined[item])


def rescaled(scores: dict[str, float]) -> dict[str, float]:
    """Each score's place between the list's weakest (0) and its best (1); every candidate 1
    when they all score the same (one candidate, say): being found is all the list says."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 1.0)
    return {item: (score - low) / (high - low) for item, score in scores.items()}
