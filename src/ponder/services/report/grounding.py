"""Does a text the model writes draw on what was read? The checks of a report in writing.

A report need not cite from its first line: introductions and executive summaries often
cite nothing, and a small model may cite nothing at all yet write about the sources, which
the citation check (``verify``) then cites. What it must do is say something a source says:

- while it streams, a text that has said nothing about what was read after 200 words is
  stopped (it is about something else, or nothing);
- a finished text is accepted when it rests on the sources: some of its sentences cite a
  source that supports them, and no more of them are about nothing read than about it;
- the part of a text before it degenerated is kept when it is substantial: 30 words or
  more that rest on the sources so, two sentences or more of them about what was read —
  counted up to where a sentence first nearly repeats an earlier one, where a loop that
  changes a word each time began.
"""

from __future__ import annotations

from ponder.services.report.claims import claims
from ponder.services.report.support import Evidence, claim_stems
from ponder.services.report.verify import verify

WITHIN_WORDS = 200
SALVAGE_WORDS = 30
SALVAGE_CLAIMS = 2
NEAR_SHARE = 0.8  # a sentence sharing this much of its words with an earlier one repeats it
NEAR_MIN_WORDS = 4  # shorter sentences ("See below.") may recur
UNGROUNDED = "it says nothing a retrieved source supports"


class Grounding:
    """The checks for one report, over the sources it may cite."""

    def __init__(self, evidence: Evidence, topic: str = "") -> None:
        self.evidence = evidence
        self.topic = topic  # sentences that only restate it are no sign of reading
        self._grounded = "\0"  # a streamed text that begins so is grounded already

    def accept(self, text: str) -> str | None:
        """For a finished text: None when it rests on the sources, else the reason."""
        return None if verify(text, self.evidence, topic=self.topic).grounded else UNGROUNDED

    def watch(self, text: str) -> str | None:
        """For a streaming text: the reason to stop it, once it has gone on too long
        without a sentence that rests on a source."""
        if text.startswith(self._grounded):
            return None
        if verify(text, self.evidence, topic=self.topic).related_claims:
            self._grounded = text
            return None
        if len(text.split()) < WITHIN_WORDS:
            return None
        return f"{UNGROUNDED} in its first {WITHIN_WORDS} words"

    def worth_keeping(self, text: str) -> str | None:
        """The beginning of a text whose rest degenerated, when it is worth keeping: up to
        where a sentence first nearly repeats an earlier one (a loop that changes a word
        each time is found late, and its start was already in the text), if that is
        substantial."""
        text = before_near_repeat(text)
        checked = verify(text, self.evidence, topic=self.topic)
        substantial = (
            len(text.split()) >= SALVAGE_WORDS
            and checked.grounded
            and checked.related_claims >= SALVAGE_CLAIMS
        )
        return text if substantial else None


def before_near_repeat(text: str) -> str:
    """``text`` up to its first sentence whose words are nearly those of an earlier one."""
    seen: list[set[str]] = []
    for claim in claims(text):
        words = claim_stems(claim.text)
        if len(words) >= NEAR_MIN_WORDS and any(
            len(words & other) >= NEAR_SHARE * len(words | other) for other in seen
        ):
            return text[: claim.start].rstrip()
        seen.append(words)
    return text
