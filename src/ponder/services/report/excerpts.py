"""The sources' own words beside the summary, for the model that writes the report.

A running summary holds a few hundred tokens of findings; a weak model's may hold no more
than notes of what was read. So the model writing the report is also shown the passages
most relevant to the question, in the room the summary leaves of its budget
(``summary_tokens``), at most half of it: a capable model gets the sources' words to
write from and cite, a small one something true to say at all, and the prompt never grows
past what a full summary costs. A summary that fills its budget gets no excerpts. (Half,
because a weak model's report is asked for twice and then written in code anyway: the
whole room cost the 270M model about 900 tokens a question, half of it about 450.)
"""

from __future__ import annotations

from ponder import prompts
from ponder.core.sources import Source
from ponder.services.model import budget
from ponder.services.text.passages import best_passages, bm25_scores

MIN_TOKENS = 150  # less room than this is not worth an excerpt
EXCERPT_CHARS = 700  # of one source, at most


def excerpt_blocks(
    topic: str, summary: str, sources: list[Source], room_tokens: int, model: str
) -> list[str]:
    """Source blocks of the passages most relevant to ``topic``, best first, within what
    ``summary`` leaves of ``room_tokens``."""
    left = min(room_tokens - budget.estimate_tokens(summary, model), room_tokens // 2)
    if left < MIN_TOKENS or not sources:
        return []
    texts = ["\n".join(s["passages"]) for s in sources]
    scores = bm25_scores([f"{s['title']}\n{t}" for s, t in zip(sources, texts, strict=True)], topic)
    ranked = sorted(range(len(sources)), key=lambda i: (-scores[i], i))
    blocks: list[str] = []
    for i in ranked:
        if scores[i] <= 0 and blocks:
            break
        text = "\n".join(best_passages(texts[i], topic, EXCERPT_CHARS))
        block = prompts.source_block(
            sources[i]["number"], sources[i]["title"], sources[i]["url"], text
        )
        cost = budget.estimate_tokens(block, model)
        if cost > left:
            continue
        blocks.append(block)
        left -= cost
    return blocks
