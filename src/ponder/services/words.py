"""Words that carry a topic: stopwords, content words and a light stem.

One vocabulary serves ranking (BM25 over passages, the local index's queries) and the
checks on what a model writes (does a query or a claim share anything with the topic?).
Question words matter most: "How do I read JSON files?" must rank on ``read``, ``json``
and ``files``, not on ``do`` and ``i``, which match every page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ENGLISH = (
    "a about above after again against all also am an and any are aren't as at be because "
    "been before being below between both but by can can't cannot could couldn't did didn't "
    "do does doesn't doing don't down during each either else etc ever every few for from "
    "further get gets getting got had hadn't has hasn't have haven't having he her here hers "
    "herself him himself his how however i i'd i'll i'm i've if in into is isn't it it's its "
    "itself just let let's like me might more most must mustn't my myself need no nor not now "
    "of off on once one only or other ought our ours ourselves out over own per please put "
    "quite rather really same shall she should shouldn't so some such than that that's the "
    "their theirs them themselves then there there's these they they're this those through "
    "thus to too under until up upon us very via was wasn't we we're were weren't what "
    "what's when where where's whether which while who who's whom whose why will with "
    "within without won't would wouldn't yes yet you you're your yours yourself yourselves"
)
# Function words of the other languages people often ask in; cheap and harmless to drop.
_OTHER_LANGUAGES = (
    # French
    "au aux avec ce ces comment dans de des du elle en est et eux il je la le les leur lui "
    "ma mais me mes moi mon ne nos notre nous on ou où par pas pour pourquoi quand que quel "
    "quelle qui sa se ses son sont sur ta te tes toi ton tu un une vos votre vous "
    # German
    "aber als am an auch auf aus bei bin bis bist das dass dem den der des die dir du ein "
    "eine einem einen einer es für hat ich ihr im ist ja kann man mich mit nach nicht noch "
    "oder sich sie sind so über um und uns von vor war warum was wie wir wo zu zum zur "
    # Spanish, Italian, Portuguese
    "al cómo como con cual cuál cuando del el ella ellos es esta este hay las lo los mi muy "
    "para pero por porque qué se sin su sus también te tu una y yo "
    "che chi con cosa di gli ha il io lei loro nel nella non per perché più sono tra "
    "ao às da das do dos ela ele em isso isto na no nos não o os para pelo pela que um uma "
    # Dutch
    "dat de die een en het hoe ik in is je met niet of op te van voor waarom wat wie zijn"
)
STOPWORDS = frozenset(_ENGLISH.split()) | frozenset(_OTHER_LANGUAGES.split())

_WORD = re.compile(r"\w+(?:'\w+)?", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-case word tokens, apostrophes kept inside words."""
    return _WORD.findall(text.lower())


def content_words(text: str) -> list[str]:
    """Words that carry meaning: no stopwords, no single characters, no bare numbers."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1 and not w.isdigit()]


def stem(word: str) -> str:
    """A light stem so that ``tides``/``tide``, ``files``/``file`` and ``parsing``/``parse``
    meet: plural, then -ing/-ed, then a final e are taken off words long enough to bear it."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def stems(text: str) -> set[str]:
    """Stems of the content words of ``text``."""
    return {stem(w) for w in content_words(text)}


def shares_content(text: str, others: Iterable[str]) -> bool:
    """Whether ``text`` has a content word (by stem) in common with any of ``others``."""
    mine = stems(text)
    return bool(mine) and any(mine & stems(other) for other in others if other)
