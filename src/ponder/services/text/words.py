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
# Function words of the other languages people often ask in. Words that are also English
# words or technical names are left out ("os", "io", "del", "dir", "bin", "war", "die",
# "hat", "van", "mit", "comment", "son", "con"…): dropping them would hurt English queries.
_OTHER_LANGUAGES = (
    # French
    "au aux avec ce ces dans de du en est et eux il je la le les leur lui mais mes moi ne "
    "nos notre nous ou "
    "où par pourquoi quand que quel quelle qui sa ses sont sur ta tes toi tu une vos "
    "votre vous "
    # German
    "aber als auch auf bei bis bist das dass der ein eine einem einen einer für ich ihr ist "
    "kann mich nach nicht noch oder sich sie sind über und uns von warum wie wir wo zu zum "
    "zur "
    # Spanish, Italian, Portuguese
    "cómo como cual cuál cuando ella ellos esta este hay las los muy para pero por porque "
    "qué sus también una yo "
    "che chi cosa gli il lei loro nel nella perché più sono tra "
    "ao às da das ela ele em isso isto não pelo pela uma "
    # Dutch
    "dat een en het hoe ik je met niet op voor waarom wat wie zijn"
)
STOPWORDS = frozenset(_ENGLISH.split()) | frozenset(_OTHER_LANGUAGES.split())

_WORD = re.compile(r"\w+(?:'\w+)?", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-case word tokens, apostrophes kept inside words."""
    return _WORD.findall(text.lower())


def terms(text: str) -> list[str]:
    """Words that carry meaning, as written: no stopwords, single characters, bare numbers."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1 and not w.isdigit()]


# Chinese, Japanese and Korean are written without spaces, so a "word" is a whole clause;
# overlapping character pairs stand in for words there.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")


def content_words(text: str) -> list[str]:
    """Terms for matching and ranking: ``terms``, with CJK runs cut into character pairs."""
    found: list[str] = []
    for term in terms(text):
        if not _CJK.search(term):
            found.append(term)
            continue
        for run in _CJK.findall(term):
            found += [run[i : i + 2] for i in range(max(len(run) - 1, 1))]
        found += [w for w in _CJK.split(term) if len(w) > 1 and w not in STOPWORDS]
    return found


def stem(word: str) -> str:
    """A light stem so that ``tides``/``tide``, ``files``/``file``, ``parsing``/``parse`` and
    ``cookies``/``cookie`` meet: plural, then -ing/-ed, then a final e or y are taken off
    words long enough to bear it. A possessive ("moon's") is the word itself."""
    word = word.removesuffix("'s").removesuffix("’s")
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "i"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith(("e", "y")):
        word = word[:-1] + ("i" if word.endswith("y") else "")
    return word


def stems(text: str) -> set[str]:
    """Stems of the content words of ``text``."""
    return {stem(w) for w in content_words(text)}


def shares_content(text: str, others: Iterable[str]) -> bool:
    """Whether ``text`` has a content word (by stem) in common with any of ``others``."""
    mine = stems(text)
    return bool(mine) and any(mine & stems(other) for other in others if other)
